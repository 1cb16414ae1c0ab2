import { BRAND_IDS, BRANDS, type BrandId } from "@gatehouse/contract";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { standInProvidersFile } from "../packages/server/test/idps.ts";
import { freePort } from "../packages/server/test/ports.ts";
import { type StandInIdp, startStandInIdp } from "../scripts/idp/stand-in.ts";
import { type StandInLicenceHelper, startLicenceHelper } from "../scripts/licence-helper/stand-in.ts";
import { atProvider } from "./federation-fixture.ts";
import { completeProfile, PASSWORD, tabTo } from "./federation-pages.ts";
import { type Service, startService } from "./global.ts";
import { layoutProblems, settled } from "./layout.ts";
import {
  createPerson,
  DESKTOP,
  expectAccessible,
  isFocused,
  launch,
  PHONE,
  reportOnFailure,
  screenshot,
  stubExternalSites,
  uniqueEmail,
} from "./support.ts";

/**
 * Issue #13 in Chromium: the studio sign-in (`/trimble/login`) through the stand-in identity provider's Trimble
 * tenant, and the completion page activating the licence in the licence-helper stand-in, in each of its answers:
 * success, temporary then success, failure, slow beyond the timeout (on the page's fake clock), absent; no token;
 * Safari; and both screens in every brand on a phone and a desktop, axe-clean, by keyboard.
 */
const SAFARI =
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15";
const COMPLETE = "/register/trimble/complete";

let browser: Awaited<ReturnType<typeof launch>>;
let idp: StandInIdp;
let helper: StandInLicenceHelper;
let helperPort: number;
let service: Service;
let visitors = 0;

beforeAll(async () => {
  browser = await launch();
  const port = await freePort();
  const origin = `http://localhost:${port}`;
  idp = await startStandInIdp({ origins: [origin] });
  // The helper must be known to the gateway before it starts (LICENCE_HELPER_URL: its pages' CSP allows it).
  helper = await startLicenceHelper({ gatewayUrl: origin, mode: "success" });
  helperPort = Number(new URL(helper.url).port);
  service = await startService(
    {
      IDPS_FILE: standInProvidersFile(idp),
      LICENCE_HELPER_URL: helper.url,
    },
    port,
  );
});
afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await helper?.close();
  await idp?.close();
});

/** A fresh browser (its own cookies and address), optionally another browser's user agent. */
async function open(path: string, userAgent?: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    baseURL: service.baseUrl,
    locale: "en-US",
    extraHTTPHeaders: { "x-forwarded-for": `203.0.113.${(visitors++ % 250) + 1}` },
    ...(userAgent ? { userAgent } : {}),
  });
  reportOnFailure(context);
  await stubExternalSites(context);
  const page = await context.newPage();
  await page.goto(path);
  return { context, page };
}

/** A signed-in person (an account made with the admin CLI, signed in on the sign-in page). */
async function signedIn(userAgent?: string) {
  const email = uniqueEmail("studio");
  await createPerson({ email, password: PASSWORD, first: "Mia", last: "Berg", country: "SE" }, service.databaseUrl);
  const visitor = await open("/", userAgent);
  await visitor.page.getByLabel("Username or email").fill(email);
  await visitor.page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await visitor.page.getByRole("button", { name: "Sign in", exact: true }).click();
  await visitor.page.waitForURL((url) => url.pathname !== "/" || url.origin !== service.baseUrl);
  return { ...visitor, email };
}

/** The completion page's address with a token, as GET /api/studio/complete sends the browser there. */
async function tokenAddress(page: Page): Promise<string> {
  const answer = await page.request.get("/api/studio/complete", { maxRedirects: 0 });
  expect(answer.status()).toBe(302);
  return String(answer.headers().location);
}

/** The helper's calls from now on. */
function newCalls() {
  const from = helper.requests.length;
  return () => helper.requests.slice(from);
}

const heading = (page: Page, name: string) => page.getByRole("heading", { name, level: 1 }).waitFor();

async function check(page: Page, name: string) {
  await settled(page);
  await expectAccessible(page);
  expect(await layoutProblems(page, "en")).toEqual([]);
  await screenshot(page, name);
}

describe("the whole path, /trimble/login → Trimble → the licence activated", () => {
  it("a new person registers through Trimble; the same person comes back and goes straight through", async () => {
    helper.setMode("success");
    const calls = newCalls();
    const { page, context } = await open("/trimble/login");
    await heading(page, "Sign in to activate your licence");
    expect(await page.title()).toBe("Sign in | Gatehouse");
    const email = uniqueEmail("studio.trimble");
    await page.getByRole("button", { name: "Sign in with Trimble" }).click();
    await atProvider(page, idp, { email, firstName: "Tom", lastName: "Reyes" });
    await heading(page, "Create account");
    await completeProfile(page);
    await heading(page, "Your licence is active");
    await page.getByText(email).waitFor();
    await page.getByText("Tom Reyes").waitFor();
    expect(new URL(page.url()).pathname).toBe(COMPLETE);
    expect(page.url()).not.toContain("access_token");
    const [call, ...more] = calls();
    expect(more).toEqual([]);
    expect(call).toMatchObject({ valid: true, noredirect: true, cookie: undefined, origin: service.baseUrl });
    await expect(page.getByRole("link", { name: "Explore learning content" }).getAttribute("href")).resolves.toBe(
      BRANDS.default.links.learning,
    );
    await context.close();

    // The Trimble identity is linked now: a sign-in goes through the login page, which leaves for the gateway.
    const again = await open("/trimble/login");
    const second = newCalls();
    await again.page.getByRole("button", { name: "Sign in with Trimble" }).click();
    await atProvider(again.page, idp, { email, firstName: "Tom", lastName: "Reyes" });
    await heading(again.page, "Your licence is active");
    expect(second()).toHaveLength(1);
    expect(second()[0]?.subject).toBe(call?.subject);
    await again.context.close();
  });

  it("a visitor of GET /api/studio/complete lands on the studio sign-in", async () => {
    const { page, context } = await open("/api/studio/complete");
    await heading(page, "Sign in to activate your licence");
    expect(new URL(page.url()).pathname).toBe("/trimble/login");
    await context.close();
  });
});

describe("each answer of the licence helper", () => {
  it("success: the token leaves the address bar and a reload activates again from the tab's storage", async () => {
    helper.setMode("success");
    const { page, context } = await signedIn();
    const calls = newCalls();
    await page.goto(await tokenAddress(page));
    await heading(page, "Your licence is active");
    await page.getByText("Mia Berg").waitFor();
    expect(page.url()).toBe(`${service.baseUrl}${COMPLETE}`);
    expect(calls()).toHaveLength(1);
    expect(calls()[0]).toMatchObject({ valid: true, noredirect: true, cookie: undefined });
    await page.reload();
    await heading(page, "Your licence is active");
    expect(calls()).toHaveLength(2);
    await context.close();
  });

  it("temporary, then success: the wait state, then the licence active", async () => {
    helper.setMode("temporary", 2);
    const { page, context } = await signedIn();
    const calls = newCalls();
    await page.goto(await tokenAddress(page));
    await page.getByText("The licence server is busy. We keep trying...").waitFor();
    await heading(page, "Your licence is active");
    expect(calls().map((c) => c.valid)).toEqual([true, true, true]);
    await context.close();
  });

  it("failure: the spec's message and the support contact, and no second try", async () => {
    helper.setMode("failure");
    const { page, context } = await signedIn();
    const calls = newCalls();
    await page.goto(await tokenAddress(page));
    await heading(page, "Licence activation failed");
    await page.getByText("License server activation failed: no seat available").waitFor();
    const support = page.getByRole("link", { name: "Contact support" });
    expect(await support.getAttribute("href")).toBe(BRANDS.default.links.support);
    expect(calls()).toHaveLength(1);
    await check(page, "studio-failure-default-desktop");
    await context.close();
  });

  it("a forged token (the person's claims, a wrong signature): the helper's own refusal", async () => {
    helper.setMode("success");
    const { page, context } = await signedIn();
    const address = new URL(await tokenAddress(page), service.baseUrl);
    const [head, claims] = String(address.searchParams.get("access_token")).split(".");
    const forged = `${head}.${claims}.${"A".repeat(86)}`;
    const calls = newCalls();
    await page.goto(`${COMPLETE}?access_token=${forged}`);
    await page.getByText("License server activation failed: Failed to obtain access token").waitFor();
    expect(calls()).toMatchObject([{ token: forged, valid: false, noredirect: true }]);
    await context.close();
  });

  it("slow beyond the timeout: exactly 5 tries, 10 s each and 2 s apart, then 'could not be reached'", async () => {
    helper.setMode("slow");
    const { page, context } = await signedIn();
    const address = await tokenAddress(page);
    const calls = newCalls();
    await page.clock.install();
    await page.goto(address);
    await heading(page, "Activating your licence");
    for (let attempt = 1; attempt <= 5; attempt++) {
      await expect.poll(() => calls().length).toBe(attempt);
      // Just short of the timeout the try is still waiting; at it, it is given up.
      await page.clock.runFor(9_900);
      expect(calls()).toHaveLength(attempt);
      await page.clock.runFor(100);
      if (attempt < 5) {
        await page.clock.runFor(1_900);
        expect(calls()).toHaveLength(attempt);
        await page.clock.runFor(100);
      }
    }
    await page.getByText("The licence helper on this computer could not be reached.", { exact: false }).waitFor();
    await page.clock.runFor(60_000);
    expect(calls()).toHaveLength(5);
    expect(calls().every((c) => c.valid && c.noredirect)).toBe(true);
    await page.getByRole("link", { name: "Contact support" }).waitFor();
    await context.close();
  });

  it("absent: nothing listening, after all the tries", async () => {
    await helper.close();
    try {
      const { page, context } = await signedIn();
      const address = await tokenAddress(page);
      await page.clock.install();
      // The page checks whose token it is before it calls the helper, with the same heading: the clock runs only
      // once that check has answered, or its own time limit could end it first (then "Your session has ended").
      const checked = page.waitForResponse((r) => r.url().endsWith("/api/studio/account"));
      await page.goto(address);
      expect((await checked).status()).toBe(200);
      await heading(page, "Activating your licence");
      const unreachable = page.getByText("could not be reached", { exact: false });
      for (let i = 0; i < 10 && !(await unreachable.isVisible()); i++) await page.clock.runFor(12_000);
      await unreachable.waitFor();
      await page.getByRole("link", { name: "Contact support" }).waitFor();
      await context.close();
    } finally {
      helper = await startLicenceHelper({ port: helperPort, gatewayUrl: service.baseUrl, mode: "success" });
    }
  });

  it("no token: 'Failed to obtain access token' and the support contact, and no call", async () => {
    const calls = newCalls();
    const { page, context } = await open(COMPLETE);
    await heading(page, "Licence activation failed");
    await page.getByText("Failed to obtain access token", { exact: true }).waitFor();
    await page.getByRole("link", { name: "Contact support" }).waitFor();
    expect(calls()).toEqual([]);
    await context.close();
  });

  it("someone else's link: nothing activated, and the person is told whose it is not", async () => {
    // The attacker makes a link for their own account and sends it to a signed-in person.
    const attacker = await signedIn();
    const address = await tokenAddress(attacker.page);
    await attacker.context.close();
    const victim = await signedIn();
    const calls = newCalls();
    await victim.page.goto(address);
    await heading(victim.page, "Licence activation failed");
    await victim.page.getByText("This activation link was made for another account.", { exact: false }).waitFor();
    await victim.page.getByRole("link", { name: "Sign in again" }).waitFor();
    expect(victim.page.url()).not.toContain("access_token");
    expect(await victim.page.getByText(attacker.email).count()).toBe(0);
    expect(calls()).toEqual([]);
    await victim.context.close();

    // Opened with nobody signed in, the link activates nothing either.
    const signedOut = await open(address);
    await heading(signedOut.page, "Licence activation failed");
    await signedOut.page.getByText("Your session has ended.", { exact: false }).waitFor();
    expect(calls()).toEqual([]);
    await signedOut.context.close();
  });

  it("Safari: a manual activation link, and no call to the helper", async () => {
    const { page, context } = await signedIn(SAFARI);
    const calls = newCalls();
    const address = await tokenAddress(page);
    const token = String(new URL(address, service.baseUrl).searchParams.get("access_token"));
    await page.goto(address);
    await heading(page, "Activate your licence");
    const link = page.getByRole("link", { name: "Activate licence" });
    const href = new URL(String(await link.getAttribute("href")));
    expect(`${href.origin}${href.pathname}`).toBe(`${helper.url}/activate`);
    expect(href.searchParams.get("access_token")).toBe(token);
    expect(href.searchParams.has("noredirect")).toBe(false);
    expect(page.url()).not.toContain("access_token");
    expect(calls()).toEqual([]);
    // The person opens it: the helper answers with its own page.
    await link.click();
    await page.getByRole("heading", { name: "Your licence is active" }).waitFor();
    expect(calls()).toMatchObject([{ valid: true, noredirect: false }]);
    await context.close();
  });
});

describe("by keyboard alone", () => {
  it("the Trimble button, and the complete page's button", async () => {
    const { page, context } = await open("/trimble/login");
    await tabTo(page, page.getByRole("button", { name: "Sign in with Trimble" }));
    await page.keyboard.press("Enter");
    await page.waitForURL((url) => url.origin === new URL(idp.url).origin);
    await context.close();

    helper.setMode("success");
    const person = await signedIn();
    await person.page.goto(await tokenAddress(person.page));
    const learn = person.page.getByRole("link", { name: "Explore learning content" });
    await tabTo(person.page, learn);
    expect(await isFocused(learn)).toBe(true);
    await person.page.keyboard.press("Enter");
    await person.page.waitForURL(BRANDS.default.links.learning);
    await person.context.close();
  });
});

describe.each(BRAND_IDS)("the studio screens in brand %s, on a phone and a desktop", (brand: BrandId) => {
  it("/trimble/login and the complete page", async () => {
    helper.setMode("success");
    const { page, context } = await signedIn();
    const token = new URL(await tokenAddress(page), service.baseUrl).searchParams.get("access_token");
    const name = BRANDS[brand].name;
    for (const [size, viewport] of [
      ["desktop", DESKTOP],
      ["phone", PHONE],
    ] as const) {
      await page.setViewportSize(viewport);
      await page.goto(`/trimble/login?theme=${brand}`);
      await heading(page, "Sign in to activate your licence");
      expect(await page.title()).toBe(`Sign in | ${name}`);
      await check(page, `studio-login-${brand}-${size}`);
      await page.goto(`${COMPLETE}?theme=${brand}&access_token=${token}`);
      await heading(page, "Your licence is active");
      await page.getByText("Mia Berg").waitFor();
      expect(await page.title()).toBe(`Licence activation | ${name}`);
      await check(page, `studio-complete-${brand}-${size}`);
    }
    await context.close();
  });
});

describe("the studio screens in Japanese, Korean, German and French on a phone", () => {
  it.each(["jp", "kr", "de", "fr"] as const)(
    "%s: no sideways scrolling, overlap or word broken apart",
    async (lang) => {
      helper.setMode("failure");
      const { page, context } = await signedIn();
      const token = new URL(await tokenAddress(page), service.baseUrl).searchParams.get("access_token");
      await page.setViewportSize(PHONE);
      await page.goto(`/trimble/login?lang=${lang}`);
      await page.locator(`html[lang]`).getByRole("heading", { level: 1 }).waitFor();
      await page.getByRole("button", { name: /Trimble/u }).waitFor();
      await settled(page);
      expect(await layoutProblems(page, lang)).toEqual([]);
      await screenshot(page, `studio-login-${lang}-phone`);
      await page.goto(`${COMPLETE}?lang=${lang}&access_token=${token}`);
      await page.getByRole("alert").waitFor();
      await page.getByText("no seat available", { exact: false }).waitFor();
      await settled(page);
      expect(await layoutProblems(page, lang)).toEqual([]);
      await expectAccessible(page);
      await screenshot(page, `studio-failure-${lang}-phone`);
      await context.close();
    },
  );
});
