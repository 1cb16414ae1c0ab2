import { BRAND_IDS, BRANDS, type BrandId, TRIALS_PER_ACCOUNT_MAX } from "@gatehouse/contract";
import { solveChallenge } from "altcha-lib";
import { deriveKey } from "altcha-lib/algorithms/sha";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { corporateOnlyFile } from "../packages/server/test/idps.ts";
import { tabTo } from "./federation-pages.ts";
import { startService } from "./global.ts";
import { layoutProblems, settled } from "./layout.ts";
import {
  admin,
  baseUrl,
  createPerson,
  DESKTOP,
  expectAccessible,
  isFocused,
  launch,
  PHONE,
  REGISTER_PASSWORD,
  screenshot,
  stubExternalSites,
  uniqueEmail,
  visit,
} from "./support.ts";

/**
 * Issue #12 in Chromium: the seven trial screens and the activation page's trial outcomes in every brand on a
 * phone and a desktop (axe, layout, screenshot), where each button leads and what its call carried, and the two
 * paths from the email check by keyboard alone. The journeys with mail are e2e/trial.e2e.ts's.
 */
let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const PRODUCT = "CR-1";
const PRODUCTS = ["Cloud Render", "Enscape", "Configurator", "Corona", "Cosmos"];
const EMAIL_KEY = "gatehouse.trialEmail";
const REGISTERED_KEY = "gatehouse.trialRegistered";

/** A fresh browser at a path; the brand sites on the Internet answer with a stub page. */
async function open(path: string) {
  const visitor = await visit(browser, "about:blank");
  await stubExternalSites(visitor.context);
  await visitor.page.goto(path);
  return visitor;
}

/** What the trial's first screen leaves in this tab for the next ones. */
const remember = (page: Page, key: string, email: string) =>
  page.evaluate(([k, v]) => sessionStorage.setItem(k as string, v as string), [key, email]);

/** An account with a password, made with the admin command line. */
async function person(email: string) {
  await createPerson({ email, password: REGISTER_PASSWORD, first: "Mia", last: "Berg", country: "SE" });
}

/** A trial sign-up made the way the web app makes it (bot check included), and its mailed link from the dev mailbox. */
async function trialSignUp(email: string, returnTo: string): Promise<URL> {
  const { page, context } = await visit(browser, "about:blank");
  try {
    const csrf = await csrfOf(page);
    // The proof of work, solved as the widget solves it.
    const challenge = await (await page.request.get("/api/captcha/challenge")).json();
    const solution = await solveChallenge({ challenge, deriveKey });
    const answer = await page.request.post("/api/account/register", {
      headers: { "x-csrf-token": csrf },
      data: {
        email,
        password: REGISTER_PASSWORD,
        firstName: "Rosa",
        lastName: "Park",
        countryCode: "PT",
        isTrial: true,
        productCode: PRODUCT,
        returnTo,
        botCheck: Buffer.from(JSON.stringify({ challenge, solution })).toString("base64"),
      },
    });
    expect(answer.status(), await answer.text()).toBe(200);
  } finally {
    await context.close();
  }
  const link = /https?:\/\/\S+\/account\/activate\/login\?\S+/u.exec(await admin("mail:list", "--email", email))?.[0];
  if (!link) throw new Error(`no activation link mailed to ${email}`);
  const url = new URL(link);
  return new URL(url.pathname + url.search, baseUrl());
}

/** The CSRF token of the page's session, as the web app holds it, for calls the test makes beside the page. */
async function csrfOf(page: Page): Promise<string> {
  const answer = await page.request.get("/api/session");
  const token = answer.headers()["x-csrf-token"];
  if (!token) throw new Error("no CSRF token");
  return token;
}

/** A screen as it is now: axe (WCAG 2.1 AA), nothing a person sees go wrong, and a screenshot. */
async function check(page: Page, name: string) {
  await settled(page);
  await expectAccessible(page);
  expect(await layoutProblems(page, "en")).toEqual([]);
  await screenshot(page, name);
}

/** The products logo strip: a labelled group with the five products' logos, each named. */
async function expectProducts(page: Page) {
  const strip = page.getByRole("group", { name: "Our products" });
  const names = await strip
    .getByRole("listitem")
    .getByRole("img")
    .evaluateAll((imgs) => imgs.map((i) => i.getAttribute("alt")));
  expect(names).toEqual(PRODUCTS);
}

/** The body of the gateway call the page makes while `act` runs. */
async function callBody(page: Page, path: string, act: () => Promise<void>): Promise<Record<string, unknown>> {
  const request = page.waitForRequest((r) => new URL(r.url()).pathname === `/api${path}` && r.method() === "POST");
  await act();
  return (await request).postDataJSON() as Record<string, unknown>;
}

const query = `productCode=${PRODUCT}&return_to=${encodeURIComponent("/profile/edit")}`;

describe("where each trial screen leads", () => {
  it("email check: an account's address to the trial's sign-in, a new one to registration; no address in a URL", async () => {
    const existing = uniqueEmail("trial.known");
    await person(existing);
    const { page, context } = await open(`/trial/email-check?${query}`);
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByText("Please enter your email address.").waitFor();

    const label = page.getByLabel("Work email");
    await label.fill(existing);
    const body = await callBody(page, "/account/register/validate", () =>
      page.getByRole("button", { name: "Continue" }).click(),
    );
    expect(body).toEqual({ email: existing });
    await page.waitForURL(`**/trial/login?${query}`);
    // The next screen loads while the address already shows: its heading says it is there.
    await page.getByRole("heading", { name: "Sign in to get your trial", level: 1 }).waitFor();
    expect(page.url()).not.toContain("example.com");
    expect(await page.getByLabel("Work email").inputValue()).toBe(existing);
    expect(await page.getByLabel("Work email").getAttribute("readonly")).not.toBeNull();

    await page.getByRole("link", { name: "Change email" }).click();
    await page.waitForURL(`**/trial/email-check?${query}`);
    const fresh = uniqueEmail("trial.new");
    await page.getByLabel("Work email").fill(fresh);
    await page.getByRole("button", { name: "Continue" }).click();
    await page.waitForURL(`**/trial/register?${query}`);
    await page.getByRole("heading", { name: "Create account to get your trial", level: 1 }).waitFor();
    expect(await page.getByLabel("Work email").inputValue()).toBe(fresh);
    expect(await page.getByLabel("Work email").getAttribute("readonly")).not.toBeNull();
    await context.close();
  });

  it("email check: an invalid address on the field, and a corporate address's hint before going on", async () => {
    const corporate = await startService({ IDPS_FILE: corporateOnlyFile() });
    try {
      const visitor = await visit(browser, `/trial/email-check?${query}`, {}, corporate.baseUrl);
      const { page, context } = visitor;
      await page.getByLabel("Work email").fill("someone@");
      await page.getByRole("button", { name: "Continue" }).click();
      await page.getByText("Please enter valid email address.").waitFor();
      expect(await page.getByLabel("Work email").getAttribute("aria-invalid")).toBe("true");

      await page.getByLabel("Work email").fill(`ann.${Date.now()}@bigcorp.example`);
      const body = await callBody(page, "/account/register/validate", () =>
        page.getByRole("button", { name: "Continue" }).click(),
      );
      expect(body.email).toMatch(/@bigcorp\.example$/u);
      await page.getByText("Using a corporate account?").waitFor();
      expect(await page.getByRole("link", { name: "Continue with corporate email" }).getAttribute("href")).toBe(
        `/corporate_login?return_to=${encodeURIComponent("/profile/edit")}`,
      );
      expect(new URL(page.url()).pathname).toBe("/trial/email-check");
      await page.getByRole("button", { name: "Continue" }).click();
      await page.waitForURL(`**/trial/register?${query}`);
      await context.close();
    } finally {
      await corporate.stop();
    }
  });

  it("trial sign-in carries the product and the trial mode, and ends at the trial's destination", async () => {
    const email = uniqueEmail("trial.signin");
    await person(email);
    const { page, context } = await open("/trial/email-check?theme=archviz");
    await remember(page, EMAIL_KEY, email);
    await page.goto(`/trial/login?theme=archviz&productCode=${PRODUCT}`);
    await page.getByLabel("Password", { exact: true }).fill(REGISTER_PASSWORD);
    const body = await callBody(page, "/account/login", () =>
      page.getByRole("button", { name: "Sign in", exact: true }).click(),
    );
    // The archviz brand's trials are Enscape's (spec §7).
    expect(body).toEqual({ email, password: REGISTER_PASSWORD, productCode: PRODUCT, isEnscapeTrial: true });
    await page.waitForURL((url) => url.origin === "https://www.archviz.example");
    const url = new URL(page.url());
    expect(url.pathname).toBe("/trial");
    expect(url.searchParams.get("isNewAccount")).toBe("false");
    expect(url.searchParams.get("productCode")).toBe(PRODUCT);
    await context.close();
  });

  it("trial sign-in: a wrong password on the field, forgot-password to the trial's recovery, prefilled", async () => {
    const email = uniqueEmail("trial.wrong");
    await person(email);
    const { page, context } = await open(`/trial/email-check?${query}`);
    await remember(page, EMAIL_KEY, email);
    await page.goto(`/trial/login?${query}`);
    await page.getByLabel("Password", { exact: true }).fill("Wrong-Password-1");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByText("Incorrect email or password.").waitFor();
    await page.getByRole("link", { name: "Forgot your password?" }).click();
    await page.waitForURL(`**/trial/recover?${query}`);
    expect(await page.getByLabel("Email").inputValue()).toBe(email);
    const body = await callBody(page, "/account/recover", () => page.getByRole("button", { name: "Recover" }).click());
    expect(body).toEqual({ email, returnTo: "/profile/edit" });
    await page.getByRole("heading", { name: "Thank you" }).waitFor();
    await page.getByRole("link", { name: "Back to login" }).click();
    await page.waitForURL(`**/trial/login?${query}`);
    await context.close();
  });

  it("a signed-in visitor confirms and starts the trial; errors shown; Use another account signs out", async () => {
    const email = uniqueEmail("trial.confirm");
    await person(email);
    const { page, context } = await open(`/trial/email-check?${query}`);
    await remember(page, EMAIL_KEY, email);
    await page.goto(`/trial/login?${query}`);
    await page.getByLabel("Password", { exact: true }).fill(REGISTER_PASSWORD);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL("**/profile/edit");

    // Signed in, the email check hands over to the confirmation.
    await page.goto(`/trial/email-check?${query}`);
    await page.waitForURL(`**/trial/email-confirm?${query}`);
    await page.getByText("Mia Berg").waitFor();
    await page.getByText(email).waitFor();

    // The trial sign-in started this product's trial; with more products' the account reaches the most it may
    // start, and a new product's is refused, on the screen.
    const csrf = await csrfOf(page);
    for (let i = 1; i < TRIALS_PER_ACCOUNT_MAX; i++) {
      const started = await page.request.post("/api/account/trial/start", {
        data: { productCode: `P-${i}` },
        headers: { "x-csrf-token": csrf },
      });
      expect(started.status()).toBe(200);
    }
    await page.goto(`/trial/email-confirm?productCode=ONE-TOO-MANY&return_to=${encodeURIComponent("/profile/edit")}`);
    await page.getByRole("button", { name: "Start your trial" }).click();
    await page.getByText("This account has started as many trials as it can. Please contact support.").waitFor();
    expect(new URL(page.url()).pathname).toBe("/trial/email-confirm");

    // One of its products: the trial it started answers, and the visitor goes on to the return address.
    await page.goto(`/trial/email-confirm?productCode=P-3&return_to=${encodeURIComponent("/profile/edit")}`);
    const body = await callBody(page, "/account/trial/start", () =>
      page.getByRole("button", { name: "Start your trial" }).click(),
    );
    expect(body).toEqual({ productCode: "P-3", isTrial: true });
    await page.waitForURL("**/profile/edit");

    await page.goto(`/trial/email-confirm?${query}`);
    await page.getByRole("button", { name: "Use another account" }).click();
    await page.waitForURL(`**/trial/email-check?${query}`);
    // The next person at this tab does not find the address filled in.
    expect(await page.getByLabel("Work email").inputValue()).toBe("");
    expect((await page.request.get("/api/session")).status()).not.toBe(200);
    await context.close();
  });

  it("the screens that need an address or a session send a newcomer to the email check, keeping the query", async () => {
    const { page, context } = await open(`/trial/email-confirm?${query}`);
    await page.waitForURL(`**/trial/email-check?${query}`);
    for (const path of ["/trial/login", "/trial/register", "/trial/register/success"]) {
      await page.goto(`${path}?${query}`);
      await page.waitForURL(`**/trial/email-check?${query}`);
    }
    // Without a known address, recovery's Back to login is the email check.
    await page.goto(`/trial/recover?${query}`);
    expect(await page.getByRole("link", { name: "Back to login" }).getAttribute("href")).toBe(
      `/trial/email-check?${query}`,
    );
    await page.goto(`/trial/link-expired?${query}`);
    await page.getByRole("link", { name: "Restart process" }).click();
    await page.waitForURL(`**/trial/email-check?${query}`);
    await context.close();
  });

  it("registration refuses a taken address by sending it to the trial's sign-in", async () => {
    const email = uniqueEmail("trial.taken");
    await person(email);
    const { page, context } = await open(`/trial/email-check?${query}`);
    await remember(page, EMAIL_KEY, email);
    await page.goto(`/trial/register?${query}`);
    await page.getByLabel("First name").fill("Rosa");
    await page.getByLabel("Last name").fill("Park");
    await page.getByLabel("Password", { exact: true }).fill(REGISTER_PASSWORD);
    await page.getByRole("combobox", { name: "Country" }).selectOption("PT");
    await page.getByText("Verified").waitFor({ timeout: 30_000 });
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL(`**/trial/login?${query}`);
    await context.close();
  });

  it("the activation link of a trial sign-up: its return address, a used link, an unknown link, a refusal", async () => {
    const email = uniqueEmail("trial.link");
    const link = await trialSignUp(email, "/profile/edit");
    expect(link.searchParams.get("trial")).toBe("1");
    const { page, context } = await open("/trial/email-check");
    await page.goto(link.href);
    // Activated and signed in, on to the product site's return address.
    await page.waitForURL("**/profile/edit");
    await page.getByLabel("First name").waitFor();
    // Used already (spec §8 "Error cannot activate user with code"): on to the target address all the same.
    await page.goto(link.href);
    await page.waitForURL("**/profile/edit");
    expect(await admin("trial:list", "--email", email)).toContain(PRODUCT);

    // An unknown code on a trial's link: the expired-link page, keeping the return address; without the mark, the
    // activation page's own error.
    const returnTo = encodeURIComponent("/profile/edit");
    await page.goto(`/account/activate/login?code=${"x".repeat(43)}&trial=1&return_to=${returnTo}`);
    await page.waitForURL(`**/trial/link-expired?return_to=${returnTo}`);
    await page.getByRole("heading", { name: "Oops! Your activation link has expired" }).waitFor();
    await page.goto(`/account/activate/login?code=${"x".repeat(43)}`);
    await page.getByRole("heading", { name: "We could not activate your account" }).waitFor();
    await context.close();

    // Any other refusal (a disabled account) keeps the activation page's error, with its reference, on a trial's link.
    const disabled = uniqueEmail("trial.disabled");
    const disabledLink = await trialSignUp(disabled, "/profile/edit");
    await admin("user:disable", "--email", disabled);
    const other = await open(disabledLink.href);
    await other.page.getByRole("heading", { name: "We could not activate your account" }).waitFor();
    await other.page.getByText("Your user has been disabled in our system.").waitFor();
    expect(new URL(other.page.url()).pathname).toBe("/account/activate/login");
    await other.context.close();
  });
});

describe("by keyboard alone", () => {
  it("email check → registration → success, with Tab, Enter and Space only", async () => {
    const email = uniqueEmail("trial.keys");
    const { page, context } = await open(`/trial/email-check?theme=engine&${query}`);
    await tabTo(page, page.getByLabel("Work email"));
    await page.keyboard.type(email);
    await page.keyboard.press("Enter");
    await page.waitForURL(`**/trial/register?${query}`);
    const submit = page.getByRole("button", { name: "Create account" });
    expect(await submit.isDisabled()).toBe(true);

    await tabTo(page, page.getByLabel("First name"));
    await page.keyboard.type("Rosa");
    await page.keyboard.press("Tab");
    await page.keyboard.type("Park");
    await page.keyboard.press("Tab");
    expect(await isFocused(page.getByLabel("Password", { exact: true }))).toBe(true);
    await page.keyboard.type(REGISTER_PASSWORD);
    const country = page.getByRole("combobox", { name: "Country" });
    await country.locator("option").nth(5).waitFor({ state: "attached" });
    await tabTo(page, country);
    await page.keyboard.type("Portugal");
    expect(await country.inputValue()).toBe("PT");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Space");
    expect(await page.getByLabel("Send me news about products, tips and offers.").isChecked()).toBe(true);
    await page.getByText("Verified").waitFor({ timeout: 30_000 });
    expect(await submit.isDisabled()).toBe(false);
    await tabTo(page, submit);
    const body = await callBody(page, "/account/register", () => page.keyboard.press("Enter"));
    expect(body).toMatchObject({
      email,
      firstName: "Rosa",
      lastName: "Park",
      countryCode: "PT",
      newsletterSubscription: true,
      productCode: PRODUCT,
      isTrial: true,
      returnTo: "/profile/edit",
    });
    await page.waitForURL(`**/trial/register/success?${query}`);
    await page.getByText(`We sent an activation link to ${email}.`).waitFor();
    await page.getByText("The link is valid for 24 hours.").waitFor();

    const resend = page.getByRole("button", { name: "Resend activation link" });
    await tabTo(page, resend);
    const resent = await callBody(page, "/account/trial/activation/resend", () => page.keyboard.press("Enter"));
    expect(resent).toEqual({ email, returnTo: "/profile/edit" });
    await page.getByText(`A new activation link has been sent to ${email}.`).waitFor();
    await context.close();
  });

  it("email check → trial sign-in, with Tab and Enter only", async () => {
    const email = uniqueEmail("trial.keys.signin");
    await person(email);
    const { page, context } = await open(`/trial/email-check?theme=engine&productCode=${PRODUCT}`);
    await tabTo(page, page.getByLabel("Work email"));
    await page.keyboard.type(email);
    await page.keyboard.press("Enter");
    await page.waitForURL(`**/trial/login?productCode=${PRODUCT}`);
    await tabTo(page, page.getByLabel("Password", { exact: true }));
    await page.keyboard.type(REGISTER_PASSWORD);
    const body = await callBody(page, "/account/login", () => page.keyboard.press("Enter"));
    expect(body).toEqual({ email, password: REGISTER_PASSWORD, productCode: PRODUCT, isTrial: true });
    await page.waitForURL((url) => url.origin === "https://www.engine.example");
    expect(page.url()).toBe(`${BRANDS.engine.links.trial}?isNewAccount=false&productCode=${PRODUCT}`);
    await context.close();
  });
});

describe.each(BRAND_IDS)("every trial screen in brand %s, on a phone and a desktop", (brand: BrandId) => {
  const name = BRANDS[brand].name;

  it("the seven screens and the activation page's trial outcomes", async () => {
    const email = uniqueEmail(`trial.brand.${brand}`);
    await person(email);
    const { page, context } = await open(`/trial/email-check?theme=${brand}`);
    const at = (path: string) => `${path}?theme=${brand}&productCode=${PRODUCT}`;
    for (const [size, viewport] of [
      ["desktop", DESKTOP],
      ["phone", PHONE],
    ] as const) {
      await page.setViewportSize(viewport);
      await page.goto(at("/trial/email-check"));
      await page.getByRole("heading", { name: "Enter your email (work or educational)", level: 1 }).waitFor();
      expect(await page.title()).toBe(`Start your trial | ${name}`);
      await expectProducts(page);
      await check(page, `trial-email-check-${brand}-${size}`);

      await remember(page, EMAIL_KEY, email);
      await page.goto(at("/trial/login"));
      await page.getByRole("heading", { name: "Sign in to get your trial", level: 1 }).waitFor();
      await check(page, `trial-login-${brand}-${size}`);

      await page.goto(at("/trial/register"));
      await page.getByRole("heading", { name: "Create account to get your trial", level: 1 }).waitFor();
      await page.getByRole("combobox", { name: "Country" }).locator("option").nth(5).waitFor({ state: "attached" });
      await page.getByText("Verified").waitFor({ timeout: 30_000 });
      await expectProducts(page);
      await check(page, `trial-register-${brand}-${size}`);

      await remember(page, REGISTERED_KEY, email);
      await page.goto(at("/trial/register/success"));
      await page.getByRole("heading", { name: "Check your email", level: 1 }).waitFor();
      await check(page, `trial-register-success-${brand}-${size}`);

      await page.goto(at("/trial/link-expired"));
      await page.getByRole("heading", { name: "Oops! Your activation link has expired", level: 1 }).waitFor();
      await check(page, `trial-link-expired-${brand}-${size}`);

      await page.goto(at("/trial/recover"));
      await page.getByRole("heading", { name: "Forgot your password?", level: 1 }).waitFor();
      await check(page, `trial-recover-${brand}-${size}`);

      // A trial's link that cannot be used any more lands on the expired-link page (above).
      await page.goto(`/account/activate/login?code=${"x".repeat(43)}&trial=1&theme=${brand}`);
      await page.waitForURL("**/trial/link-expired");
    }

    // Signed in: Confirm your email, on both sizes.
    await page.setViewportSize(DESKTOP);
    await page.goto(at("/trial/login"));
    await page.getByLabel("Password", { exact: true }).fill(REGISTER_PASSWORD);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL((url) => !url.pathname.startsWith("/trial/login"));
    for (const [size, viewport] of [
      ["desktop", DESKTOP],
      ["phone", PHONE],
    ] as const) {
      await page.setViewportSize(viewport);
      await page.goto(at("/trial/email-confirm"));
      await page.getByRole("button", { name: "Start your trial" }).waitFor();
      expect(await page.title()).toBe(`Confirm your email | ${name}`);
      await check(page, `trial-email-confirm-${brand}-${size}`);
    }
    await context.close();
  });
});
