import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Service, startService } from "./global.ts";
import { createPerson, launch, screenshot, signIn, uniqueEmail } from "./support.ts";

const PASSWORD = "correct horse battery";

/**
 * Linked sessions (spec §4, issue #10 §5) across loopback host names of the default brands file: `localhost` is the
 * central host (PUBLIC_URL), `cloud.localhost` and `archviz.localhost` are brand hosts with cookies of their own.
 */
let service: Service;
let browser: Browser;
let central = "";
let cloud = "";
let archviz = "";

beforeAll(async () => {
  service = await startService({ LINKED_SESSIONS: "true" });
  central = service.baseUrl;
  cloud = central.replace("//localhost", "//cloud.localhost");
  archviz = central.replace("//localhost", "//archviz.localhost");
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

async function person(): Promise<string> {
  const email = uniqueEmail("linked");
  await createPerson({ email, password: PASSWORD, first: "Ann", last: "Lee", country: "DE" }, service.databaseUrl);
  return email;
}

/** A browser of its own, counting the link round trips it makes. */
async function newBrowser(): Promise<{ context: BrowserContext; page: Page; trips: string[] }> {
  const context = await browser.newContext({ locale: "en-US" });
  const page = await context.newPage();
  const trips: string[] = [];
  page.on("request", (request) => {
    if (request.url().includes("/api/session/link/start")) trips.push(request.url());
  });
  return { context, page, trips };
}

/** The profile screen of a host, shown to a signed-in person: their e-mail in the read-only field. */
async function profileOn(page: Page, origin: string): Promise<string> {
  await page.goto(`${origin}/profile/edit`);
  await page.getByRole("heading", { name: "Edit account" }).waitFor();
  expect(new URL(page.url()).origin).toBe(origin);
  return page.getByLabel("Email").inputValue();
}

describe("linked sessions across brand hosts (spec §4, issue #10 §5)", () => {
  it("signed in on the central host, a brand host opens signed in, without a form", async () => {
    const email = await person();
    const { context, page, trips } = await newBrowser();
    await page.goto(`${central}/?return_to=${encodeURIComponent("/profile/edit")}`);
    await signIn(page, email, PASSWORD);
    await page.getByRole("heading", { name: "Edit account" }).waitFor();
    expect(trips).toEqual([]); // the central host never links

    expect(await profileOn(page, cloud)).toBe(email);
    expect(trips.length).toBe(1);
    await screenshot(page, "linked-profile-cloud");
    await context.close();
  });

  it("signed in on a brand host, the central host and another brand open signed in", async () => {
    const email = await person();
    const { context, page } = await newBrowser();
    await page.goto(`${cloud}/?return_to=${encodeURIComponent("/profile/edit")}`);
    await page.getByLabel("Username or email").waitFor();
    await signIn(page, email, PASSWORD);
    await page.getByRole("heading", { name: "Edit account" }).waitFor();
    expect(new URL(page.url()).origin).toBe(cloud);

    expect(await profileOn(page, central)).toBe(email);
    expect(await profileOn(page, archviz)).toBe(email);
    await context.close();
  });

  it("signing out on one host signs out of all of them", async () => {
    const email = await person();
    const { context, page } = await newBrowser();
    await page.goto(`${central}/?return_to=${encodeURIComponent("/profile/edit")}`);
    await signIn(page, email, PASSWORD);
    await page.getByRole("heading", { name: "Edit account" }).waitFor();
    expect(await profileOn(page, cloud)).toBe(email);

    await page.goto(`${cloud}/logout`);
    await page.getByText("You have been signed out.").waitFor();
    for (const origin of [central, cloud]) {
      await page.goto(`${origin}/profile/edit`);
      await page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor();
    }
    await context.close();
  });

  it("a visitor makes one round trip, not a loop, and sees the sign-in form on the brand host", async () => {
    const { context, page, trips } = await newBrowser();
    await page.goto(`${cloud}/`);
    await page.getByLabel("Username or email").waitFor();
    // The network quiet for half a second (Playwright's networkidle): a loop of round trips never gets there.
    await page.waitForLoadState("networkidle");
    expect(new URL(page.url()).origin).toBe(cloud);
    expect(trips.length).toBe(1);
    await page.reload();
    await page.getByLabel("Username or email").waitFor();
    await page.waitForLoadState("networkidle");
    expect(trips.length).toBe(1);
    await context.close();
  });

  it("a host outside the brands file serves the app and signs in there, never sent to a link it has no part in", async () => {
    // `alias.localhost` resolves to loopback but is not a site of the brands file (an alias, an address): no code
    // can be bound to it, so its pages must not go to the link, whose every leg would refuse it.
    const alias = central.replace("//localhost", "//alias.localhost");
    const email = await person();
    const { context, page, trips } = await newBrowser();
    await page.goto(`${alias}/?return_to=${encodeURIComponent("/profile/edit")}`);
    await page.getByLabel("Username or email").waitFor();
    await signIn(page, email, PASSWORD);
    await page.getByRole("heading", { name: "Edit account" }).waitFor();
    expect(new URL(page.url()).origin).toBe(alias);
    expect(trips).toEqual([]);
    await context.close();
  });
});
