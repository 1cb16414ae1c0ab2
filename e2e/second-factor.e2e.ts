import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { BRAND_IDS, STEP_UP_MS, TOTP as TOTP_SETTINGS } from "@gatehouse/contract";
import { Secret, TOTP } from "otpauth";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestSmtp } from "../packages/server/test/smtp.ts";
import { startServiceWithClock } from "./clock.ts";
import type { Service } from "./global.ts";
import { layoutProblems, settled } from "./layout.ts";
import { clientsFileOf, type LoopbackApp, startLoopbackApp } from "./loopback-app.ts";
import { startTestSmtp } from "./run.ts";
import {
  createPerson,
  DESKTOP,
  expectAccessible,
  isFocused,
  launch,
  PHONE,
  screenshot,
  signedInVisitor,
  signIn,
  TO_PROFILE,
  uniqueEmail,
  visit,
} from "./support.ts";

/**
 * Issue #26 in Chromium, web side: the authenticator app turned on from Edit account (the secret read from the
 * page, codes computed here as the person's app would), the recovery codes kept from the page, sign-in with a code
 * and with a recovery code, "Remember this browser", and the step-up dialog once the proof is older than 10
 * minutes. One Gatehouse whose clock the test moves (e2e/fake-clock.ts): each code is computed at the server's
 * time, in a 30-second step no code of this account was used in yet (a code is accepted once).
 */
const PASSWORD = "Granite-Kettle-58";

let browser: Browser;
let smtp: TestSmtp;
let service: Service;
let advanceClock: (ms: number) => Promise<void>;
/** A desktop app whose client demands a second factor (`require_mfa` in the clients file). */
let app: LoopbackApp;
/** How far the server's clock runs ahead of ours. */
let offset = 0;

beforeAll(async () => {
  browser = await launch();
  smtp = await startTestSmtp();
  app = await startLoopbackApp();
  const clients = [
    {
      client_id: "app-mfa",
      application_type: "native",
      redirect_uris: ["http://127.0.0.1/callback"],
      first_party: true,
      require_mfa: true,
    },
  ];
  ({ service, advance: advanceClock } = await startServiceWithClock({
    SMTP_URL: smtp.url,
    CLIENTS_FILE: clientsFileOf(clients),
  }));
});
afterAll(async () => {
  await app?.close();
  await browser?.close();
  await service?.stop();
  await smtp?.stop();
});

/** Moves the server's clock on. */
async function later(ms: number): Promise<void> {
  offset += ms;
  await advanceClock(ms);
}

/** The code the person's authenticator app shows now, by the server's clock. */
function codeNow(secret: string): string {
  const totp = new TOTP({
    secret: Secret.fromBase32(secret),
    algorithm: TOTP_SETTINGS.algorithm,
    digits: TOTP_SETTINGS.digits,
    period: TOTP_SETTINGS.periodS,
  });
  return totp.generate({ timestamp: Date.now() + offset });
}

/** A code of the next 30-second step: the previous step's code was used already and counts once. */
async function nextCode(secret: string): Promise<string> {
  await later(TOTP_SETTINGS.periodS * 1000);
  return codeNow(secret);
}

/**
 * What a person sees is whole and accessible on a phone and a desktop; photographed on both. A modal dialog draws
 * over the page by design (its controls cover the page's): it is photographed as the window shows it, and the
 * page's layout is not measured under it.
 */
async function check(page: Page, name: string, modal = false): Promise<void> {
  for (const [viewport, size] of [
    ["phone", PHONE],
    ["desktop", DESKTOP],
  ] as const) {
    await page.setViewportSize(size);
    await settled(page);
    await expectAccessible(page);
    if (modal) {
      await screenshot(page, `${name}-${viewport}`, { fullPage: false });
      continue;
    }
    expect(await layoutProblems(page, "en")).toEqual([]);
    await screenshot(page, `${name}-${viewport}`);
  }
}

const security = (page: Page) => page.getByRole("region", { name: "Sign-in and security" });
const acceptConfirms = (page: Page) => page.on("dialog", (dialog) => void dialog.accept());

/** A person with a password, and a browser signed in as them on Edit account. */
const signedIn = (email: string) => signedInVisitor(browser, email, PASSWORD, service.baseUrl);

/** Signs in with the password up to the second-factor screen. */
async function toSecondFactor(page: Page, email: string): Promise<void> {
  await page.goto(TO_PROFILE);
  await signIn(page, email, PASSWORD);
  await page.getByRole("heading", { name: "Two-step verification", level: 1 }).waitFor();
}

/** Tabs through the page until `target` has the focus (at most `max` presses): the keyboard's way there. */
async function tabTo(page: Page, target: Locator, max = 25): Promise<void> {
  for (let i = 0; i < max; i++) {
    if (await isFocused(target)) return;
    await page.keyboard.press("Tab");
  }
  expect(await isFocused(target)).toBe(true);
}

const email = uniqueEmail("totp.person");
let secret = "";
let recoveryCodes: string[] = [];

describe("the authenticator app on Edit account (issue #26)", () => {
  it("turns on from the QR code's setup key and a code, then shows the recovery codes once", async () => {
    await createPerson({ email, password: PASSWORD, first: "Ada", last: "Byron", country: "GB" }, service.databaseUrl);
    const { page, context } = await signedIn(email);
    const section = security(page);
    await section.getByText("Protect your account with a second step", { exact: false }).waitFor();

    // Each brand starts a set-up (the last one's secret is the one confirmed), QR code and setup key on the page.
    for (const brand of BRAND_IDS) {
      await page.goto(`/profile/edit?theme=${brand}`);
      await section.getByRole("button", { name: "Turn on" }).click();
      await section.getByRole("img", { name: "QR code for your authenticator app" }).waitFor();
      await check(page, `security-qr-${brand}`);
    }
    const shown = await section.locator("code").innerText();
    secret = shown.replace(/\s+/gu, "");
    expect(secret).toMatch(/^[A-Z2-7]{32,}$/u);
    expect(shown).toMatch(/^([A-Z2-7]{4} )+[A-Z2-7]{1,4}$/u);

    // A wrong code is refused at the field; the app's code turns it on.
    const field = section.getByLabel("Code from the app");
    await field.fill(codeNow(secret) === "000000" ? "111111" : "000000");
    await section.getByRole("button", { name: "Confirm" }).click();
    await section.getByText("This code is not valid.", { exact: false }).waitFor();
    await field.fill(codeNow(secret));
    await section.getByRole("button", { name: "Confirm" }).click();
    await section.getByText("The authenticator app is on.").waitFor();
    const list = section.getByRole("list", { name: "Recovery codes" });
    await list.waitFor();
    const first = await list.getByRole("listitem").allInnerTexts();
    expect(first).toHaveLength(10);

    // New codes in each brand (the previous set stops working): the last set is the one kept.
    for (const brand of BRAND_IDS) {
      await page.goto(`/profile/edit?theme=${brand}`);
      await section.getByRole("button", { name: "Make new codes" }).click();
      await list.waitFor();
      await check(page, `security-recovery-codes-${brand}`);
    }
    recoveryCodes = await list.getByRole("listitem").allInnerTexts();
    expect(recoveryCodes).toHaveLength(10);
    expect(recoveryCodes).not.toEqual(first);
    const download = section.getByRole("link", { name: "Download" });
    // Named after the page's brand (the last of the loop).
    expect(await download.getAttribute("download")).toBe(`${BRAND_IDS.at(-1)}-recovery-codes.txt`);
    const [saved] = await Promise.all([page.waitForEvent("download"), download.click()]);
    const file = readFileSync(await saved.path(), "utf8");
    for (const code of recoveryCodes) expect(file).toContain(code);

    await section.getByRole("button", { name: "I have saved them" }).click();
    await section.getByText("Recovery codes left: 10", { exact: false }).waitFor();
    expect(await list.count()).toBe(0);
    await context.close();
  });
});

describe("signing in with a second factor (issue #26)", () => {
  it("asks for the code after the password, in every brand, and takes it by keyboard alone", async () => {
    const { page, context } = await visit(browser, "/", {}, service.baseUrl);
    await toSecondFactor(page, email);
    const step = page.url();
    for (const brand of BRAND_IDS) {
      await page.goto(`${step}&theme=${brand}`);
      await page.getByLabel("Authentication code").waitFor();
      await check(page, `second-factor-${brand}`);
    }
    const field = page.getByLabel("Authentication code");
    expect(await field.getAttribute("autocomplete")).toBe("one-time-code");
    expect(await field.getAttribute("inputmode")).toBe("numeric");
    expect(await page.title()).toContain("Two-step verification");

    // Keyboard alone: Tab to the field, type, Enter.
    await page.goto(step);
    await field.waitFor();
    await tabTo(page, field);
    await page.keyboard.type(await nextCode(secret));
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Edit account", level: 1 }).waitFor();
    await security(page).getByText("On. When you sign in", { exact: false }).waitFor();
    await context.close();
  });

  it("takes a recovery code instead, once, and remembers the browser for the next sign-in", async () => {
    const { page, context } = await visit(browser, "/", {}, service.baseUrl);
    await toSecondFactor(page, email);
    await page.getByRole("button", { name: "Use a recovery code instead" }).click();
    await page.getByLabel("Recovery code").fill(recoveryCodes[0] as string);
    await page.getByLabel("Remember this browser for 30 days").check();
    await page.getByRole("button", { name: "Verify" }).click();
    // The screen says how many codes are left, then the sign-in goes on.
    await page.getByText("Recovery code accepted. Recovery codes left: 9.", { exact: false }).waitFor();
    await check(page, "second-factor-recovery-used");
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByRole("heading", { name: "Edit account", level: 1 }).waitFor();
    await security(page).getByText("Recovery codes left: 9", { exact: false }).waitFor();

    // Signed out and in again on this browser: no second question.
    await page.goto("/logout");
    await page.getByText("You have been signed out.").waitFor();
    await page.goto(TO_PROFILE);
    await signIn(page, email, PASSWORD);
    await page.getByRole("heading", { name: "Edit account", level: 1 }).waitFor();
    await context.close();

    // Another browser is asked, and the used recovery code does not work twice.
    const other = await visit(browser, "/", {}, service.baseUrl);
    await toSecondFactor(other.page, email);
    await other.page.getByRole("button", { name: "Use a recovery code instead" }).click();
    await other.page.getByLabel("Recovery code").fill(recoveryCodes[0] as string);
    await other.page.getByRole("button", { name: "Verify" }).click();
    await other.page.getByText("This code is not valid.", { exact: false }).waitFor();
    // "Sign out" ends the unfinished sign-in: the step's page sends the browser back to sign-in.
    const step = other.page.url();
    await other.page.getByRole("button", { name: "Sign out" }).click();
    await other.page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor();
    await other.page.goto(step);
    await other.page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor();
    await other.context.close();
  });
});

describe("the step-up dialog (issue #26)", () => {
  it("asks to confirm it's you once the proof is older than 10 minutes, then turns the app off", async () => {
    const { page, context } = await visit(browser, "/", {}, service.baseUrl);
    acceptConfirms(page);
    await toSecondFactor(page, email);
    await page.getByLabel("Authentication code").fill(await nextCode(secret));
    await page.getByRole("button", { name: "Verify" }).click();
    await page.getByRole("heading", { name: "Edit account", level: 1 }).waitFor();
    await later(STEP_UP_MS + 60_000);

    const dialog = page.getByRole("dialog", { name: "Confirm it's you" });
    for (const brand of BRAND_IDS) {
      await page.goto(`/profile/edit?theme=${brand}`);
      const turnOff = security(page).getByRole("button", { name: "Turn off" });
      await turnOff.click();
      await dialog.getByLabel("Password", { exact: true }).waitFor();
      expect(await dialog.getByLabel("Authentication code").isVisible()).toBe(true);
      await check(page, `step-up-${brand}`, true);
      // Escape cancels: focus goes back to the button, and the change did not happen.
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "detached" });
      expect(await isFocused(turnOff)).toBe(true);
      await security(page).getByText("please confirm it's you", { exact: false }).waitFor();
    }

    // The focus stays in the dialog while it is open.
    await security(page).getByRole("button", { name: "Turn off" }).click();
    await dialog.getByLabel("Password", { exact: true }).waitFor();
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press("Tab");
      expect(await dialog.evaluate((el) => el.contains(document.activeElement))).toBe(true);
    }
    await dialog.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await dialog.getByLabel("Authentication code").fill(await nextCode(secret));
    await dialog.getByRole("button", { name: "Confirm" }).click();
    await security(page).getByText("The authenticator app is off.").waitFor();
    await security(page).getByRole("button", { name: "Turn on" }).waitFor();
    await context.close();

    // Off: the password alone signs in again.
    const again = await visit(browser, TO_PROFILE, {}, service.baseUrl);
    await signIn(again.page, email, PASSWORD);
    await again.page.getByRole("heading", { name: "Edit account", level: 1 }).waitFor();
    await again.context.close();
  });
});

describe("a site that demands a second factor (issue #26, require_mfa)", () => {
  it("leads a person without one to set one up, then on to the app with its code", async () => {
    const person = uniqueEmail("mfa.demanded");
    await createPerson(
      { email: person, password: PASSWORD, first: "Ada", last: "Byron", country: "GB" },
      service.databaseUrl,
    );
    const verifier = randomBytes(32).toString("base64url");
    const query = new URLSearchParams({
      client_id: "app-mfa",
      redirect_uri: `${app.origin}/callback`,
      response_type: "code",
      scope: "openid email",
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
      state: "mfa-state",
      login_hint: person,
    });
    const { page, context } = await visit(browser, `/oidc/auth?${query}`, {}, service.baseUrl);
    acceptConfirms(page);
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();

    // Signed in with the password alone: the app gets nothing yet; the account page says why, at its security part.
    const section = security(page);
    await section.getByText("The site you are signing in to asks for a second step.", { exact: false }).waitFor();
    expect(app.lastTo("/callback")).toBeUndefined();
    expect(await section.getByRole("button", { name: "Continue" }).count()).toBe(0);
    await check(page, "security-demanded");

    await section.getByRole("button", { name: "Turn on" }).click();
    const shown = (await section.locator("code").innerText()).replace(/\s+/gu, "");
    await section.getByLabel("Code from the app").fill(codeNow(shown));
    await section.getByRole("button", { name: "Confirm" }).click();
    await section.getByRole("list", { name: "Recovery codes" }).waitFor();
    await section.getByRole("button", { name: "I have saved them" }).click();
    await section.getByRole("button", { name: "Continue" }).click();

    await page.waitForURL((url) => url.origin === app.origin);
    const callback = app.lastTo("/callback");
    expect(callback?.searchParams.get("state")).toBe("mfa-state");
    expect(callback?.searchParams.get("code")).toBeTruthy();
    await context.close();
  });
});
