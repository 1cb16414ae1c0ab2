import { createHash, randomBytes } from "node:crypto";
import { BRAND_IDS, BRANDS, type BrandId } from "@gatehouse/contract";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Service, startService } from "./global.ts";
import { clientsFileOf, type LoopbackApp, startLoopbackApp } from "./loopback-app.ts";
import { adminOn, expectAccessible, launch, PHONE, screenshot, signIn, uniqueEmail, visit } from "./support.ts";

/**
 * Issue #24 in Chromium: a sign-in that owes steps is an attempt on the server, not a session; the browser does the
 * steps and ends where the sign-in was going (here a desktop app's loopback port, through /service_login).
 */
const PASSWORD = "correct horse battery";
const NEW_PASSWORD = "Copper-Lantern-91!";

let app: LoopbackApp;
let service: Service;
let browser: Browser;

beforeAll(async () => {
  app = await startLoopbackApp();
  const clients = [
    {
      client_id: "app-engine",
      application_type: "native",
      redirect_uris: ["http://127.0.0.1/callback"],
      brand: "engine",
      first_party: true,
    },
  ];
  service = await startService({ CLIENTS_FILE: clientsFileOf(clients) });
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await app?.close();
});

/** An account that owes what `flags` and the missing fields say: `--must-change-password`, no country. */
async function owing(flags: string[], withCountry = false): Promise<string> {
  const email = uniqueEmail("owing");
  const country = withCountry ? ["--country", "DE"] : [];
  await adminOn(
    service.databaseUrl,
    "user:create",
    "--email",
    email,
    "--password",
    PASSWORD,
    "--first",
    "Ann",
    "--last",
    "Lee",
    ...country,
    ...flags,
  );
  return email;
}

/** The browser's session and sign-in attempt, as the API answers them. */
const state = (page: Page) =>
  page.evaluate(async () => ({
    session: (await fetch("/api/session")).status,
    attempt: (await fetch("/api/sign-in/attempt")).status,
  }));

describe("owed steps are a sign-in attempt (issue #24)", () => {
  it("a desktop app's sign-in owing both steps: the password, the profile, then the app gets its code", async () => {
    const email = await owing(["--must-change-password"]);
    const verifier = randomBytes(32).toString("base64url");
    const query = new URLSearchParams({
      client_id: "app-engine",
      redirect_uri: `${app.origin}/callback`,
      response_type: "code",
      scope: "openid email",
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
      state: "core-state",
      login_hint: email,
    });
    const { page, context } = await visit(browser, `/oidc/auth?${query}`, {}, service.baseUrl);
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();

    await page.getByRole("heading", { name: "Change password" }).waitFor();
    expect(await state(page)).toEqual({ session: 204, attempt: 200 });
    await page.getByLabel("Current password", { exact: true }).fill(PASSWORD);
    await page.getByLabel("New password", { exact: true }).fill(NEW_PASSWORD);
    await page.getByRole("button", { name: "Change Password" }).click();
    await page.getByText("Password successfully updated. Redirecting you to login page...").waitFor();

    await page.getByText("Your account has no country yet. Select your country and save to continue.").waitFor();
    expect(await state(page)).toEqual({ session: 204, attempt: 200 });
    // A step's screen serves only its step: the rest of the account page waits for the finished sign-in.
    expect(await page.getByRole("region", { name: "Linked sign-in methods" }).count()).toBe(0);
    await page.getByRole("combobox", { name: "Country" }).selectOption("AT");
    await page.getByRole("button", { name: "Save changes" }).click();

    await page.waitForURL((url) => url.origin === app.origin);
    const callback = app.lastTo("/callback");
    expect(callback?.searchParams.get("state")).toBe("core-state");
    expect(callback?.searchParams.get("code")).toBeTruthy();
    await context.close();
  });

  it("sign-out on the step's screen ends the attempt: the next visit is a visitor's", async () => {
    const email = await owing([], false);
    const { page, context } = await visit(browser, "/", {}, service.baseUrl);
    await signIn(page, email, PASSWORD);
    await page.getByRole("heading", { name: "Edit account" }).waitFor();
    await page.getByRole("link", { name: "Sign out" }).click();
    await page.getByRole("status").filter({ hasText: "You have been signed out" }).waitFor();
    expect(await state(page)).toEqual({ session: 204, attempt: 404 });
    await context.close();
  });

  it.each(BRAND_IDS.map((brand) => [brand]))(
    "the profile step in the %s brand, on a phone: axe-clean",
    async (brand) => {
      const email = await owing([], false);
      const host = new URL(service.baseUrl);
      if (brand !== "default") host.hostname = `${brand}.localhost`;
      const { page, context } = await visit(browser, host.href, {}, service.baseUrl);
      await page.setViewportSize(PHONE);
      await signIn(page, email, PASSWORD);
      await page.getByText("Your account has no country yet.", { exact: false }).waitFor();
      expect(await page.evaluate(() => document.documentElement.dataset.brand)).toBe(brand);
      expect(await page.title()).toBe(`Edit account | ${BRANDS[brand as BrandId].name}`);
      await expectAccessible(page);
      await screenshot(page, `profile-step-${brand}-phone`);
      await context.close();
    },
  );
});
