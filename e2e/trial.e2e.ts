import { BRANDS, trialAddress } from "@gatehouse/contract";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { linkIn, type TestSmtp } from "../packages/server/test/smtp.ts";
import { startServiceWithClock } from "./clock.ts";
import type { Service } from "./global.ts";
import { startTestSmtp } from "./run.ts";
import {
  adminOn,
  createPerson,
  launch,
  REGISTER_PASSWORD,
  screenshot,
  signIn,
  stubExternalSites,
  uniqueEmail,
  visit,
} from "./support.ts";

/**
 * Issue #12, the trial flow of spec §2 from its first screen to the trial's address, in Chromium, with the real SMTP
 * server of the tests and a Gatehouse whose clock the test can move a day ahead (e2e/fake-clock.ts).
 */
let browser: Awaited<ReturnType<typeof launch>>;
let smtp: TestSmtp;
let service: Service;
let advanceClock: (ms: number) => Promise<void>;

beforeAll(async () => {
  browser = await launch();
  smtp = await startTestSmtp();
  ({ service, advance: advanceClock } = await startServiceWithClock({ SMTP_URL: smtp.url }));
});
afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await smtp?.stop();
});

const DAY_MS = 24 * 60 * 60 * 1000;

/** The n-th mail to an address (1-based), once it has arrived. */
const nthMail = (address: string, n: number) => smtp.waitFor(address, { nth: n });

/** A mailed link as this test's service serves it (links name the brand's public host), on the brand's theme. */
function onService(link: URL, theme: string): string {
  const url = new URL(link.pathname + link.search, service.baseUrl);
  url.searchParams.set("theme", theme);
  return url.href;
}

async function trialVisitor(path: string) {
  const visitor = await visit(browser, path, {}, service.baseUrl);
  await stubExternalSites(visitor.context);
  return visitor;
}

/** Steps 1 and 4: the email check finds no account, and the trial registration's one form is filled and sent. */
async function registerForTrial(page: Page, email: string) {
  await page.getByRole("heading", { name: "Enter your email (work or educational)" }).waitFor();
  await page.getByLabel("Work email").fill(email);
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByRole("heading", { name: "Create account to get your trial", level: 1 }).waitFor();
  expect(await page.getByLabel("Work email").inputValue()).toBe(email);
  expect(await page.getByLabel("Work email").isEditable()).toBe(false);
  const create = page.getByRole("button", { name: "Create account" });
  // Spec §2: enabled only once first name, last name and password are filled, with no field errors.
  expect(await create.isDisabled()).toBe(true);
  await page.getByLabel("First name").fill("Rosa");
  await page.getByLabel("Last name").fill("Park");
  await page.getByLabel("Password", { exact: true }).fill(REGISTER_PASSWORD);
  await page.getByRole("combobox", { name: "Country" }).selectOption("PT");
  await page.getByText("Verified").waitFor({ timeout: 30_000 });
  await expect.poll(() => create.isEnabled()).toBe(true);
  const sent = page.waitForRequest((r) => r.url().endsWith("/api/account/register"));
  await create.click();
  await page.getByRole("heading", { name: "Check your email" }).waitFor();
  return (await sent).postDataJSON() as Record<string, unknown>;
}

const trials = async (email: string) => (await adminOn(service.databaseUrl, "trial:list", "--email", email)).trim();

describe("trial flow", () => {
  it("a new person: email check, registration, the mailed link, and the trial address as a new account", async () => {
    const email = uniqueEmail("trial-new");
    const { page, context } = await trialVisitor("/trial/email-check?theme=cloud&productCode=RENDER-PRO");
    const body = await registerForTrial(page, email);
    // Spec §7: the registration carries the product code and the trial flag; the address is never in a URL.
    expect(body).toMatchObject({ email, productCode: "RENDER-PRO", isTrial: true, firstName: "Rosa" });
    expect(page.url()).not.toContain(encodeURIComponent(email));
    await page.getByText(email).waitFor();
    await screenshot(page, "trial-journey-success-cloud");

    const link = linkIn(await nthMail(email, 1), "/account/activate/login");
    expect(link.searchParams.get("trial")).toBe("1");
    expect(await trials(email)).toBe("no trials");
    await page.goto(onService(link, "cloud"));
    await page.waitForURL((url) => url.origin === "https://cloud.gatehouse.example");
    expect(page.url()).toBe(trialAddress(BRANDS.cloud, { isNewAccount: true, productCode: "RENDER-PRO" }));
    expect(await trials(email)).toMatch(/RENDER-PRO {2}cloud {2}trial-new/u);
    await context.close();
  });

  it("a known address: the email check leads to the trial sign-in, which goes to the trial address", async () => {
    const email = uniqueEmail("trial-known");
    await createPerson(
      { email, password: REGISTER_PASSWORD, first: "Ada", last: "Byron", country: "GB" },
      service.databaseUrl,
    );
    const { page, context } = await trialVisitor("/trial/email-check?theme=archviz&productCode=ENSCAPE-PRO");
    await page.getByLabel("Work email").fill(email);
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByRole("heading", { name: "Sign in to get your trial", level: 1 }).waitFor();
    expect(await page.getByLabel("Work email").isEditable()).toBe(false);
    const sent = page.waitForRequest((r) => r.url().endsWith("/api/account/login"));
    await page.getByLabel("Password", { exact: true }).fill(REGISTER_PASSWORD);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    // The Enscape brand says isEnscapeTrial (spec §7).
    expect((await sent).postDataJSON()).toMatchObject({ email, productCode: "ENSCAPE-PRO", isEnscapeTrial: true });
    await page.waitForURL((url) => url.origin === "https://www.archviz.example");
    expect(page.url()).toBe(trialAddress(BRANDS.archviz, { isNewAccount: false, productCode: "ENSCAPE-PRO" }));
    expect(await trials(email)).toMatch(/ENSCAPE-PRO {2}archviz/u);
    await context.close();
  });

  it("a signed-in visitor confirms the address and starts the trial at the return address", async () => {
    const email = uniqueEmail("trial-confirm");
    await createPerson(
      { email, password: REGISTER_PASSWORD, first: "Grace", last: "Hopper", country: "US" },
      service.databaseUrl,
    );
    const { page, context } = await trialVisitor("/?theme=engine");
    expect((await signIn(page, email, REGISTER_PASSWORD)).status()).toBe(200);
    // The sign-in goes on to this host's landing (the account page on the development brands file's localhost);
    // let it arrive before opening the trial's link.
    await page.waitForURL((url) => url.pathname === "/profile/edit");
    const returnTo = "https://www.engine.example/try/corona-pro";
    await page.goto(`/trial/email-check?theme=engine&productCode=CORONA-PRO&return_to=${encodeURIComponent(returnTo)}`);
    await page.getByRole("heading", { name: "Confirm your email" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/trial/email-confirm");
    await page.getByText(email).waitFor();
    await page.getByText("Grace Hopper").waitFor();
    await page.getByRole("button", { name: "Start your trial" }).click();
    await page.waitForURL(returnTo);
    expect(await trials(email)).toMatch(/CORONA-PRO {2}engine/u);
    await context.close();
  });

  it("an expired link (a day later on the server's clock) leads to the expired page, and Restart process starts over", async () => {
    const email = uniqueEmail("trial-late");
    const { page, context } = await trialVisitor("/trial/email-check?theme=assets&productCode=COSMOS");
    await registerForTrial(page, email);
    const link = linkIn(await nthMail(email, 1), "/account/activate/login");
    await advanceClock(DAY_MS + 60_000);
    await page.goto(onService(link, "assets"));
    await page.getByRole("heading", { name: "Oops! Your activation link has expired" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/trial/link-expired");
    await screenshot(page, "trial-journey-expired-assets");
    await page
      .getByRole("button", { name: "Restart process" })
      .or(page.getByRole("link", { name: "Restart process" }))
      .click();
    await page.getByRole("heading", { name: "Enter your email (work or educational)" }).waitFor();
    // The trial's product carries over from the link to the new start.
    expect(new URL(page.url()).searchParams.get("productCode")).toBe("COSMOS");
    expect(await trials(email)).toBe("no trials");
    await context.close();
  });

  it("resend mails a new link that works, and the older one then leads to the expired page", async () => {
    const email = uniqueEmail("trial-resend");
    const { page, context } = await trialVisitor("/trial/email-check?theme=configurator");
    await registerForTrial(page, email);
    const first = linkIn(await nthMail(email, 1), "/account/activate/login");
    const resent = page.waitForResponse((r) => r.url().endsWith("/api/account/trial/activation/resend"));
    await page.getByRole("button", { name: "Resend activation link" }).click();
    expect((await resent).status()).toBe(200);
    await page.getByRole("status").filter({ hasText: email }).waitFor();
    const second = linkIn(await nthMail(email, 2), "/account/activate/login");
    expect(second.searchParams.get("code")).not.toBe(first.searchParams.get("code"));

    await page.goto(onService(first, "configurator"));
    await page.getByRole("heading", { name: "Oops! Your activation link has expired" }).waitFor();
    await page.goto(onService(second, "configurator"));
    await page.waitForURL((url) => url.origin === "https://configurator.gatehouse.example");
    // No product code in the address: the deployment's default (TRIAL_PRODUCT_CODE).
    expect(page.url()).toBe(trialAddress(BRANDS.configurator, { isNewAccount: true, productCode: "TRIAL-DEFAULT" }));
    // Spec §8: a used link ("Error cannot activate user with code") goes on to the target address.
    const again = await trialVisitor(onService(second, "configurator"));
    await again.page.waitForURL((url) => url.origin === "https://configurator.gatehouse.example");
    expect(new URL(again.page.url()).searchParams.get("isNewAccount")).toBe("true");
    await again.context.close();
    await context.close();
  });

  it("trial password recovery mails a reset link, and Back to login returns to the trial sign-in", async () => {
    const email = uniqueEmail("trial-recover");
    await createPerson(
      { email, password: REGISTER_PASSWORD, first: "Alan", last: "Turing", country: "GB" },
      service.databaseUrl,
    );
    const { page, context } = await trialVisitor("/trial/email-check?theme=cross");
    await page.getByLabel("Work email").fill(email);
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByRole("heading", { name: "Sign in to get your trial", level: 1 }).waitFor();
    await page.getByRole("link", { name: "Forgot your password?" }).click();
    expect(new URL(page.url()).pathname).toBe("/trial/recover");
    expect(await page.getByLabel("Email").inputValue()).toBe(email);
    await page.getByRole("button", { name: "Recover" }).click();
    await page.getByText(`If an account with ${email} is found`).waitFor();
    expect(linkIn(await nthMail(email, 1), "/account/password-reset").searchParams.get("code")).toBeTruthy();
    await page
      .getByRole("button", { name: "Back to login" })
      .or(page.getByRole("link", { name: "Back to login" }))
      .click();
    await page.getByRole("heading", { name: "Sign in to get your trial", level: 1 }).waitFor();
    await context.close();
  });
});
