import { createHash, randomBytes } from "node:crypto";
import { BRAND_IDS, BRANDS, type BrandId } from "@gatehouse/contract";
import type { Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { linkIn } from "../packages/server/test/smtp.ts";
import { useFederation } from "./federation-fixture.ts";
import { completeProfile, federationPages, TO_PROFILE } from "./federation-pages.ts";
import { clientsFileOf, type LoopbackApp, startLoopbackApp } from "./loopback-app.ts";
import {
  createPerson,
  expectAccessible,
  holdBack,
  PHONE,
  registerStepOne,
  registerStepTwo,
  screenshot,
  signIn,
  uniqueEmail,
  visit,
} from "./support.ts";

const PASSWORD = "correct horse battery";

let app: LoopbackApp;

/** The app's listener, then one desktop app per brand and a partner site for the service's CLIENTS_FILE. */
async function clientsFile(): Promise<Record<string, string>> {
  app = await startLoopbackApp();
  // One desktop app per brand (the sign-in shows in its client's brand), and a partner site that is not ours.
  const clients = [
    ...BRAND_IDS.map((brand) => ({
      client_id: `app-${brand}`,
      application_type: "native",
      redirect_uris: ["http://127.0.0.1/callback"],
      brand,
      first_party: true,
    })),
    {
      client_id: "partner",
      client_name: "Partner Gallery",
      client_secret: "partner-secret-of-at-least-forty-three-characters",
      redirect_uris: [`${app.origin}/partner`],
      brand: "cloud",
    },
  ];
  return { CLIENTS_FILE: clientsFileOf(clients) };
}

/**
 * Chromium, a real SMTP server (activation mails), the stand-in identity provider (Google and the others: issue #24
 * §2, every way in) and a Gatehouse with the clients above.
 */
const fx = useFederation(clientsFile);
const { open, signInWith } = federationPages(fx);
afterAll(async () => {
  await app?.close();
});

/** An authorization request as the app makes it: code + PKCE S256, a fresh state. */
function authorizeUrl(clientId: string, redirectUri: string, extra: Record<string, string> = {}) {
  const verifier = randomBytes(32).toString("base64url");
  const state = randomBytes(8).toString("hex");
  const query = new URLSearchParams({
    client_id: clientId,
    redirect_uri: redirectUri,
    response_type: "code",
    scope: "openid email profile",
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    state,
    ...extra,
  });
  return { url: `${fx.service.baseUrl}/oidc/auth?${query}`, state, verifier };
}

/** The app redeems its code at the token endpoint, as a public client with its PKCE verifier. */
async function redeem(clientId: string, code: string, verifier: string) {
  const answer = await fetch(`${fx.service.baseUrl}/oidc/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      client_id: clientId,
      code,
      redirect_uri: `${app.origin}/callback`,
      code_verifier: verifier,
    }),
  });
  expect(answer.status).toBe(200);
  return (await answer.json()) as { id_token: string; access_token: string };
}

/** The brand the page is themed in (the shell's attribute) and the logo's accessible name. */
async function expectBrand(page: Page, brand: BrandId) {
  await page.getByRole("img", { name: BRANDS[brand].name }).first().waitFor();
  expect(await page.evaluate(() => document.documentElement.dataset.brand)).toBe(brand);
}

const lastTo = (path: string) => app.lastTo(path);

async function person() {
  const email = uniqueEmail("service");
  await createPerson({ email, password: PASSWORD, first: "Ann", last: "Lee", country: "DE" }, fx.service.databaseUrl);
  return email;
}

/** Whom the app's access token belongs to, by the provider's userinfo endpoint. */
async function userinfoEmail(accessToken: string) {
  const answer = await fetch(`${fx.service.baseUrl}/oidc/me`, { headers: { authorization: `Bearer ${accessToken}` } });
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { email: string }).email;
}

describe("a site's or app's sign-in (SERVICE_LOGIN)", () => {
  it.each(BRAND_IDS.map((brand) => [brand]))("shows in the client's brand (%s), axe-clean", async (brand) => {
    const { page, context } = await visit(fx.browser, "about:blank", {}, fx.service.baseUrl);
    await page.setViewportSize(brand === "archviz" ? { width: 390, height: 844 } : { width: 1280, height: 800 });
    await page.goto(authorizeUrl(`app-${brand}`, `${app.origin}/callback`).url);
    const name = BRANDS[brand as BrandId].name;
    await page.getByRole("heading", { level: 1, name: `Sign in to continue to ${name}` }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/service_login");
    expect(await page.evaluate(() => document.documentElement.dataset.brand)).toBe(brand);
    expect(await page.title()).toBe(`Sign in | ${name}`);
    await expectAccessible(page);
    await screenshot(page, `service-login-${brand}`);
    await context.close();
  });

  it("signs in by keyboard and sends the browser to the app's loopback port with a code", async () => {
    const email = await person();
    const { url, state } = authorizeUrl("app-archviz", `${app.origin}/callback`, { login_hint: email });
    const { page, context } = await visit(fx.browser, url, {}, fx.service.baseUrl);
    const address = page.getByLabel("Username or email");
    await address.waitFor();
    expect(await address.inputValue()).toBe(email); // the site's login_hint
    await page.getByLabel("Password", { exact: true }).focus();
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press("Enter");
    await page.waitForURL((target) => target.origin === app.origin);
    const callback = lastTo("/callback");
    expect(callback?.searchParams.get("state")).toBe(state);
    expect(callback?.searchParams.get("code")).toBeTruthy();

    // Signed in already: the next sign-in of another app finishes at once, without a form.
    const next = authorizeUrl("app-engine", `${app.origin}/callback`);
    await page.goto(next.url);
    await page.waitForURL((target) => target.origin === app.origin);
    expect(lastTo("/callback")?.searchParams.get("state")).toBe(next.state);
    await context.close();
  });

  it("offers a person without an account to create one, and brings them back to this sign-in", async () => {
    const { url } = authorizeUrl("app-cloud", `${app.origin}/callback`);
    const { page, context } = await visit(fx.browser, url, {}, fx.service.baseUrl);
    await page.getByRole("link", { name: "Create account" }).click();
    await page.waitForURL((target) => target.pathname === "/register");
    expect(new URL(page.url()).searchParams.get("return_to")).toBe("/service_login?client_brand=cloud");
    await page.getByRole("heading", { level: 1, name: "Create account" }).waitFor();
    await context.close();
  });

  it("asks for consent for a site that is not the vendor's own, then continues", async () => {
    const email = await person();
    const { url, state } = authorizeUrl("partner", `${app.origin}/partner`);
    const { page, context } = await visit(fx.browser, url, {}, fx.service.baseUrl);
    await page.getByRole("heading", { level: 1, name: "Sign in to continue to Partner Gallery" }).waitFor();
    await signIn(page, email, PASSWORD);
    await page.getByRole("heading", { level: 1, name: "Partner Gallery would like to use your account" }).waitFor();
    expect(await page.getByRole("listitem").allTextContents()).toEqual([
      "Know who you are when you sign in",
      "See your email address",
      "See your name and language",
    ]);
    expect(await page.evaluate(() => document.documentElement.dataset.brand)).toBe("cloud");
    await expectAccessible(page);
    await screenshot(page, "service-login-consent");
    await page.getByRole("button", { name: "Allow" }).click();
    await page.waitForURL((target) => target.origin === app.origin);
    expect(lastTo("/partner")?.searchParams.get("state")).toBe(state);
    expect(lastTo("/partner")?.searchParams.get("code")).toBeTruthy();
    await context.close();
  });

  it("shows our error page, not the library's, for a redirect address the app did not register", async () => {
    const { page, context } = await visit(
      fx.browser,
      authorizeUrl("partner", "https://evil.example/partner").url,
      {},
      fx.service.baseUrl,
    );
    await page.getByRole("heading", { level: 1, name: "Sign-in request refused" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/error");
    await expectAccessible(page);
    await context.close();
  });
});

describe("every way in, in the client's brand (issue #24 §2)", () => {
  it("an account made with Google signs in to the desktop app with the Google button", async () => {
    const email = uniqueEmail("service.google");
    const made = await open(TO_PROFILE);
    await signInWith(made.page, "google", { email, firstName: "Grace", lastName: "Hopper" });
    await completeProfile(made.page);
    await made.page.getByRole("heading", { name: "Account created" }).waitFor();
    await made.context.close();

    const { url, state, verifier } = authorizeUrl("app-archviz", `${app.origin}/callback`);
    const { page, context } = await open(url);
    await page.getByRole("heading", { level: 1, name: "Sign in to continue to Enscape" }).waitFor();
    await page.getByRole("link", { name: "Sign in with corporate email" }).waitFor();
    await signInWith(page, "google", { email });
    await page.waitForURL((target) => target.origin === app.origin);
    const callback = lastTo("/callback");
    expect(callback?.searchParams.get("state")).toBe(state);
    const tokens = await redeem("app-archviz", callback?.searchParams.get("code") ?? "", verifier);
    expect(await userinfoEmail(tokens.access_token)).toBe(email);
    await context.close();
  });

  it("Create account keeps Enscape through a reload and the mailed activation link, back to the app", async () => {
    const email = uniqueEmail("service.enscape");
    const { url, state } = authorizeUrl("app-archviz", `${app.origin}/callback`);
    const { page, context } = await open(url);
    await page.getByRole("link", { name: "Create account" }).click();
    await page.getByRole("heading", { name: "Create account", level: 1 }).waitFor();
    await expectBrand(page, "archviz");
    expect(await page.title()).toBe("Sign up | Enscape");
    await page.reload();
    await expectBrand(page, "archviz");
    await registerStepOne(page, email);
    await registerStepTwo(page);
    await page.getByText("Verified").waitFor({ timeout: 30_000 });
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByRole("heading", { name: "Check your email" }).waitFor();
    await expectBrand(page, "archviz");

    // The mailed link opens in Enscape (held at the activation call to look), then the app gets its code.
    const link = linkIn(await fx.smtp.waitFor(email), "/account/activate/login");
    const release = await holdBack(page, "**/api/account/activation/login");
    await page.goto(link.href);
    await page.getByText("Activating your account and signing you in...").waitFor();
    await expectBrand(page, "archviz");
    release();
    await page.waitForURL((target) => target.origin === app.origin);
    expect(lastTo("/callback")?.searchParams.get("state")).toBe(state);
    expect(lastTo("/callback")?.searchParams.get("code")).toBeTruthy();
    await context.close();
  });

  it("Forgot your password? and the corporate sign-in stay Enscape, through a reload", async () => {
    const { url } = authorizeUrl("app-archviz", `${app.origin}/callback`);
    const { page, context } = await open(url);
    await page.getByRole("link", { name: "Forgot your password?" }).click();
    await page.getByRole("heading", { name: "Forgot your password?", level: 1 }).waitFor();
    await expectBrand(page, "archviz");
    await page.reload();
    await page.getByRole("heading", { name: "Forgot your password?", level: 1 }).waitFor();
    await expectBrand(page, "archviz");
    await page.goBack();
    await page.getByRole("link", { name: "Sign in with corporate email" }).click();
    await page.waitForURL((target) => target.pathname === "/corporate_login");
    await expectBrand(page, "archviz");
    await context.close();
  });

  it("a return address naming an unknown brand, or leading elsewhere, keeps the host's brand", async () => {
    const { page, context } = await open(
      `/register?return_to=${encodeURIComponent("/service_login?client_brand=evil")}`,
    );
    await page.getByRole("heading", { name: "Create account", level: 1 }).waitFor();
    await expectBrand(page, "default");
    await page.goto(`/register?return_to=${encodeURIComponent("/profile/edit?client_brand=archviz")}`);
    await page.getByRole("heading", { name: "Create account", level: 1 }).waitFor();
    await expectBrand(page, "default");
    await context.close();
  });

  it.each([["engine"], ["cross"]] as const)("shows every way in on a phone (%s)", async (brand) => {
    const { page, context } = await open(authorizeUrl(`app-${brand}`, `${app.origin}/callback`).url);
    await page.setViewportSize(PHONE);
    await page.getByRole("button", { name: "Sign in with Google" }).waitFor();
    await expectBrand(page, brand);
    await expectAccessible(page);
    await screenshot(page, `service-login-ways-in-${brand}-phone`);
    await context.close();
  });
});
