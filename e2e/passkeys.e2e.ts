import { createHash, randomBytes } from "node:crypto";
import { BRAND_IDS, type BrandId, STEP_UP_MS } from "@gatehouse/contract";
import type { Browser, CDPSession, Page } from "playwright-core";
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
  signIn,
  TO_PROFILE,
  uniqueEmail,
  visit,
} from "./support.ts";

/**
 * Issue #26 in Chromium with its virtual authenticator (DevTools protocol WebAuthn domain: an internal, platform
 * authenticator with resident keys and user verification, presence given automatically): a passkey added on Edit
 * account on a brand host, then the sign-in with it alone from the sign-in page and from a desktop app's
 * /service_login; an authenticator that does not verify the user is refused; the screens in 7 brands.
 */
const PASSWORD = "Granite-Kettle-58";

/** One desktop app per brand (a native client on the loopback redirect), as service-login.e2e.ts has them. */
const CLIENTS_FILE = clientsFileOf(
  BRAND_IDS.map((brand) => ({
    client_id: `app-${brand}`,
    application_type: "native",
    redirect_uris: ["http://127.0.0.1/callback"],
    brand,
    first_party: true,
  })),
);
/** Chromium, a real SMTP server and a Gatehouse whose clock the test moves (a step-up once a proof is old). */
const fx = {} as { browser: Browser; smtp: TestSmtp; service: Service; advance: (ms: number) => Promise<void> };
let app: LoopbackApp;
beforeAll(async () => {
  app = await startLoopbackApp();
  fx.browser = await launch();
  fx.smtp = await startTestSmtp();
  const started = await startServiceWithClock({ SMTP_URL: fx.smtp.url, CLIENTS_FILE });
  fx.service = started.service;
  fx.advance = started.advance;
});
afterAll(async () => {
  await fx.browser?.close();
  await fx.service?.stop();
  await fx.smtp?.stop();
  await app?.close();
});

/** The service's origin on a brand's host name (Chromium resolves *.localhost to loopback). */
const on = (host: string) => fx.service.baseUrl.replace("//localhost:", `//${host}:`);

interface Authenticator {
  cdp: CDPSession;
  id: string;
}

/** Chromium's virtual platform authenticator for this page: a passkey-capable device with a fingerprint reader. */
async function addAuthenticator(page: Page): Promise<Authenticator> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable", { enableUI: false });
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp, id: authenticatorId };
}

/**
 * Whether the virtual authenticator answers by itself (the person touching it). Off, a passkey request waits: the
 * e-mail field's autofill request stays pending on the sign-in page instead of being answered on load.
 */
async function presence(authenticator: Authenticator, enabled: boolean): Promise<void> {
  await authenticator.cdp.send("WebAuthn.setAutomaticPresenceSimulation", {
    authenticatorId: authenticator.id,
    enabled,
  });
}

/**
 * Presses the passkey button (`press`) and touches the authenticator once the browser asks: the button's modal request
 * waits for its options from the server, which are held until the touch is on. A touch set after the press could
 * otherwise come after the authenticator was asked (a fast server), and the request would wait for a touch forever.
 */
async function pressWithTouch(page: Page, authenticator: Authenticator, press: () => Promise<void>): Promise<void> {
  let touched = () => {};
  const touch = new Promise<void>((resolve) => {
    touched = resolve;
  });
  const options = "**/api/sign-in/passkey/options";
  // Every held request is let through before the route goes: a route removed under a held request is handled twice.
  const held: Promise<void>[] = [];
  await page.route(options, (route) => {
    const through = touch.then(() => route.continue());
    held.push(through);
    return through;
  });
  await press();
  await presence(authenticator, true);
  touched();
  await Promise.all(held);
  await page.unroute(options);
}

async function credentialsOf(authenticator: Authenticator) {
  const { credentials } = await authenticator.cdp.send("WebAuthn.getCredentials", {
    authenticatorId: authenticator.id,
  });
  return credentials;
}

async function person(): Promise<string> {
  const email = uniqueEmail("passkey.person");
  await createPerson({ email, password: PASSWORD, first: "Ada", last: "Byron", country: "GB" }, fx.service.databaseUrl);
  return email;
}

const security = (page: Page) => page.getByRole("region", { name: "Sign-in and security" });
const editAccount = (page: Page) => page.getByRole("heading", { name: "Edit account", level: 1 }).waitFor();

/** Signs in with the password on `base`, adds a passkey from Edit account, and signs out. */
async function withPasskey(base: string, email: string) {
  const visitor = await visit(fx.browser, TO_PROFILE, {}, base);
  const { page } = visitor;
  page.on("dialog", (dialog) => void dialog.accept());
  const authenticator = await addAuthenticator(page);
  await signIn(page, email, PASSWORD);
  await editAccount(page);
  const section = security(page);
  await section.getByText("You have no passkeys yet.").waitFor();
  await section.getByRole("button", { name: "Add a passkey" }).click();
  await section.getByText("The passkey is added.").waitFor();
  // The first second factor comes with its recovery codes, shown once.
  await section.getByRole("button", { name: "I have saved them" }).waitFor();
  await section.getByText("Chrome on Linux", { exact: false }).waitFor();
  const credentials = await credentialsOf(authenticator);
  expect(credentials).toHaveLength(1);
  expect(credentials[0]?.isResidentCredential).toBe(true);
  expect(credentials[0]?.rpId).toBe(new URL(base).hostname);
  return { ...visitor, authenticator };
}

async function signOut(page: Page) {
  await page.getByRole("link", { name: "Sign out" }).click();
  await page.getByText("You have been signed out.").waitFor();
}

describe("passkeys in Chromium (issue #26)", () => {
  it("adds a passkey on a brand host, then signs in with it alone from the sign-in page", async () => {
    const email = await person();
    const base = on("archviz.localhost");
    const { page, context, authenticator } = await withPasskey(base, email);
    await signOut(page);

    // Conditional mediation: the sign-in page's e-mail field offers the passkey in its autofill; the virtual
    // authenticator picks it at once (the person choosing it in the list), and the sign-in finishes without a click.
    await page.goto(`${base}${TO_PROFILE}`);
    await editAccount(page);
    await signOut(page);

    // The button: a modal request, which ends the pending autofill one first.
    await presence(authenticator, false);
    await page.goto(`${base}${TO_PROFILE}`);
    const button = page.getByRole("button", { name: "Sign in with a passkey" });
    await button.waitFor();
    expect(await page.getByLabel("Username or email").getAttribute("autocomplete")).toBe("username webauthn");
    // Touched once the browser asks (the autofill request ended before the button's began).
    await pressWithTouch(page, authenticator, () => button.click());
    await editAccount(page);
    await security(page).getByText("Last used", { exact: false }).waitFor();
    const [credential] = await credentialsOf(authenticator);
    expect(credential?.signCount).toBeGreaterThan(0);

    // Renamed in place, then removed after the confirmation: the account has no passkey left.
    const section = security(page);
    await section.getByRole("button", { name: /^Rename / }).click();
    const name = section.getByLabel("Passkey name");
    expect(await isFocused(name)).toBe(true);
    await name.fill("Work laptop");
    await section.getByRole("button", { name: "Save" }).click();
    await section.getByText("Work laptop").waitFor();
    await section.getByRole("button", { name: "Remove Work laptop" }).click();
    await section.getByText("The passkey is removed.").waitFor();
    await section.getByText("You have no passkeys yet.").waitFor();
    await context.close();
  });

  it("signs in with a passkey from /service_login for a desktop app, which gets its code", async () => {
    const email = await person();
    const { page, context, authenticator } = await withPasskey(fx.service.baseUrl, email);
    await signOut(page);
    await presence(authenticator, false);

    const verifier = randomBytes(32).toString("base64url");
    const state = randomBytes(8).toString("hex");
    const query = new URLSearchParams({
      client_id: "app-engine",
      redirect_uri: `${app.origin}/callback`,
      response_type: "code",
      scope: "openid email profile",
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
      state,
    });
    await page.goto(`${fx.service.baseUrl}/oidc/auth?${query}`);
    await page.getByRole("heading", { level: 1, name: /^Sign in to continue to / }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/service_login");
    await pressWithTouch(page, authenticator, () =>
      page.getByRole("button", { name: "Sign in with a passkey" }).click(),
    );
    await page.waitForURL((target) => target.origin === app.origin);
    const callback = app.lastTo("/callback");
    expect(callback?.searchParams.get("state")).toBe(state);
    expect(callback?.searchParams.get("code")).toBeTruthy();
    await context.close();
  });

  it("confirms it's you with the passkey when removing it after 10 minutes (step-up)", async () => {
    const email = await person();
    const { page, context } = await withPasskey(fx.service.baseUrl, email);
    const section = security(page);
    await section.getByRole("button", { name: "I have saved them" }).click();
    await fx.advance(STEP_UP_MS + 60_000);
    await section.getByRole("button", { name: /^Remove / }).click();
    const dialog = page.getByRole("dialog", { name: "Confirm it's you" });
    await dialog.getByRole("button", { name: "Use a passkey" }).click();
    await section.getByText("The passkey is removed.").waitFor();
    expect(await dialog.count()).toBe(0);
    await context.close();
  });

  it("refuses an authenticator that does not verify the person, with a message", async () => {
    const email = await person();
    const { page, context, authenticator } = await withPasskey(fx.service.baseUrl, email);
    await signOut(page);
    await authenticator.cdp.send("WebAuthn.setUserVerified", {
      authenticatorId: authenticator.id,
      isUserVerified: false,
    });
    await page.goto(TO_PROFILE);
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await page
      .getByRole("alert")
      .filter({ hasText: /passkey/u })
      .waitFor();
    expect(await page.getByRole("heading", { name: "Edit account" }).count()).toBe(0);
    expect((await page.request.get(`${fx.service.baseUrl}/api/session`)).status()).toBe(204);
    await context.close();
  });

  it("says nothing when the browser cannot run the e-mail field's passkey offer, and the button is still there", async () => {
    const { page, context } = await visit(fx.browser, "about:blank", {}, fx.service.baseUrl);
    // A browser that says it offers passkeys in autofill, then refuses the usernameless request (Chromium's
    // headless shell does: "Resident credentials … not supported"); the flag says the refusal has happened.
    await page.addInitScript(() => {
      const get = navigator.credentials.get.bind(navigator.credentials);
      navigator.credentials.get = (request) => {
        if (request?.mediation !== "conditional") return get(request);
        (window as { autofillRefused?: boolean }).autofillRefused = true;
        return Promise.reject(new DOMException("Resident credentials are not supported", "NotSupportedError"));
      };
    });
    await page.goto("/");
    await page.waitForFunction(() => (window as { autofillRefused?: boolean }).autofillRefused === true);
    // Two frames after the refusal, anything it would say is on the screen.
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    expect(await page.getByRole("alert").count()).toBe(0);
    expect(await page.getByRole("button", { name: "Sign in with a passkey" }).isEnabled()).toBe(true);
    await context.close();
  });

  it("shows the passkeys and the passkey button in the 7 brands on a phone and a desktop, axe-clean, by keyboard", async () => {
    const email = await person();
    const { page, context, authenticator } = await withPasskey(fx.service.baseUrl, email);
    await security(page).getByRole("button", { name: "I have saved them" }).click();
    for (const brand of BRAND_IDS) {
      await page.goto(`/profile/edit?theme=${brand}`);
      await security(page)
        .getByRole("button", { name: /^Remove / })
        .waitFor();
      await check(page, `passkeys-section-${brand}`, brand);
    }
    // By keyboard: Tab reaches the passkey's Rename button, Enter opens the field.
    const rename = security(page).getByRole("button", { name: /^Rename / });
    await tabTo(page, rename);
    await page.keyboard.press("Enter");
    expect(await isFocused(security(page).getByLabel("Passkey name"))).toBe(true);
    await page.keyboard.press("Escape");
    await signOut(page);
    await presence(authenticator, false);
    for (const brand of BRAND_IDS) {
      await page.goto(`/?theme=${brand}`);
      await page.getByRole("button", { name: "Sign in with a passkey" }).waitFor();
      await check(page, `passkey-sign-in-${brand}`, brand);
    }
    // By keyboard alone: the passkey button is reached by Tab and signs in with Enter.
    await page.goto(TO_PROFILE);
    await tabTo(page, page.getByRole("button", { name: "Sign in with a passkey" }));
    await pressWithTouch(page, authenticator, () => page.keyboard.press("Enter"));
    await editAccount(page);
    await context.close();
  });
});

/** Whole and accessible on a phone and a desktop, in the page's brand; photographed on both. */
async function check(page: Page, name: string, brand: BrandId): Promise<void> {
  expect(await page.evaluate(() => document.documentElement.dataset.brand)).toBe(brand);
  for (const [viewport, size] of [
    ["phone", PHONE],
    ["desktop", DESKTOP],
  ] as const) {
    await page.setViewportSize(size);
    await settled(page);
    await expectAccessible(page);
    expect(await layoutProblems(page, "en")).toEqual([]);
    await screenshot(page, `${name}-${viewport}`);
  }
}

/** Tabs through the page until `target` has the focus: the keyboard's way there. */
async function tabTo(page: Page, target: ReturnType<Page["getByRole"]>, max = 40): Promise<void> {
  for (let i = 0; i < max; i++) {
    if (await isFocused(target)) return;
    await page.keyboard.press("Tab");
  }
  expect(await isFocused(target)).toBe(true);
}
