import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningPostgres, startPostgres } from "../packages/server/test/postgres.ts";
import { type Service, startService } from "./global.ts";
import { createPerson, expectAccessible, launch, screenshot, signIn, uniqueEmail, visit } from "./support.ts";

/**
 * The database restarting under a person using the site (issue #14): the API answers 503 with Retry-After, the web
 * app shows its retry screen saying the service is away for a moment, and Try again works once it is back, with
 * the person still signed in. A PostgreSQL server of this file's own, stopped and started for real.
 */
let postgres: RunningPostgres;
let service: Service;
let browser: Browser;

beforeAll(async () => {
  postgres = await startPostgres();
  service = await startService({ DATABASE_URL: postgres.url });
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await postgres?.stop();
});

describe("a database restart seen in the browser", () => {
  it("shows the retry screen while the database is away, and Try again continues once it is back", async () => {
    const email = uniqueEmail("outage");
    const password = "Granite-Kettle-58";
    await createPerson({ email, password, first: "Lena", last: "Brandt", country: "DE" }, postgres.url);
    const { page, context } = await visit(browser, "/profile/edit", {}, service.baseUrl);
    await page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor();
    await signIn(page, email, password);
    await page.getByRole("heading", { name: "Edit account" }).waitFor();

    await postgres.pause();
    const answer = page.waitForResponse((r) => r.url().endsWith("/api/session"));
    await page.reload();
    const session = await answer;
    expect(session.status()).toBe(503);
    expect(Number(session.headers()["retry-after"])).toBeGreaterThan(0);
    await page.getByRole("heading", { name: "Oops... what a mess." }).waitFor();
    await page.getByText("The service is temporarily unavailable. Please try again in a moment.").waitFor();
    await page.getByText(/^Ref: [0-9a-f-]{36}$/u).waitFor();
    await expectAccessible(page);
    await screenshot(page, "database-outage-retry");

    await postgres.resume();
    // The node reconnects by itself; a person pressing Try again a moment later carries on, still signed in.
    await expect.poll(async () => (await fetch(`${service.baseUrl}/readyz`)).status, { timeout: 20_000 }).toBe(200);
    await page.getByRole("button", { name: "Try again" }).click();
    await page.getByRole("heading", { name: "Edit account" }).waitFor();
    expect(await page.getByLabel("First name").inputValue()).toBe("Lena");
    await context.close();
  });
});
