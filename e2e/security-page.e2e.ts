/**
 * Issue #27 in Chromium, web side: the security page (/account/security) with its three lists, in every brand on
 * a phone and a desktop (axe, layout, keyboard); one browser ending another's sign-in (the other then meets the
 * sign-in page); removing a site's access (its refresh and access tokens then fail); the activity in Japanese.
 * The site is a real listener on loopback that signs in through the provider with the person's consent.
 */
import { createHash, randomBytes } from "node:crypto";
import { BRAND_IDS, SECURITY_PAGE_SIZE } from "@gatehouse/contract";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Service, startService } from "./global.ts";
import { layoutProblems, settled } from "./layout.ts";
import { clientsFileOf, type LoopbackApp, startLoopbackApp } from "./loopback-app.ts";
import {
  createPerson,
  expectAccessible,
  isFocused,
  launch,
  reportOnFailure,
  screenshot,
  signIn,
  signInTo,
  uniqueEmail,
} from "./support.ts";

const PHONE = { width: 360, height: 780 };
const DESKTOP = { width: 1280, height: 800 };
const PASSWORD = "Granite-Kettle-58";
const SECURITY = "/account/security";
const SECRET = "partner-secret-of-at-least-forty-three-characters";
/** Two browsers the page tells apart by their user agents (Bowser's words for them). */
const WINDOWS_CHROME = {
  userAgent:
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  words: "Chrome 131 on Windows 10",
};
const LINUX_FIREFOX = {
  userAgent: "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
  words: "Firefox 133 on Linux",
};

let browser: Browser;
let service: Service;
/** The partner site behind its redirect URI. */
let site: LoopbackApp;

beforeAll(async () => {
  site = await startLoopbackApp();
  const clients = [
    {
      client_id: "partner",
      client_name: "Partner Gallery",
      client_secret: SECRET,
      redirect_uris: [`${site.origin}/partner`],
      brand: "assets",
    },
  ];
  service = await startService({ CLIENTS_FILE: clientsFileOf(clients) });
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await site?.close();
});

let visitors = 0;
/** A browser profile of its own: its user agent, its address and the country the proxy says it is in. */
async function browserOf(
  device: { userAgent: string },
  country: string,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    baseURL: service.baseUrl,
    userAgent: device.userAgent,
    locale: "en-US",
    extraHTTPHeaders: { "x-forwarded-for": `203.0.113.${(visitors++ % 250) + 1}`, "cf-ipcountry": country },
  });
  reportOnFailure(context);
  const page = await context.newPage();
  // The page's confirmations (Sign out everywhere else, Remove access) are answered yes.
  page.on("dialog", (dialog) => void dialog.accept());
  return { context, page };
}

async function person(): Promise<string> {
  const email = uniqueEmail("security.page");
  await createPerson({ email, password: PASSWORD, first: "Ada", last: "Byron", country: "GB" }, service.databaseUrl);
  return email;
}

/** Signs in on the sign-in page, then opens the security page (or another page, named by its heading). */
const signedInAt = (page: Page, email: string, path = SECURITY, heading = "Devices, apps and activity") =>
  signInTo(page, email, PASSWORD, path, heading);

/** The partner's authorization request: code + PKCE S256, offline access with the consent that needs. */
function authorizeUrl() {
  const verifier = randomBytes(32).toString("base64url");
  const query = new URLSearchParams({
    client_id: "partner",
    redirect_uri: `${site.origin}/partner`,
    response_type: "code",
    scope: "openid email profile offline_access",
    prompt: "consent",
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    state: randomBytes(8).toString("hex"),
  });
  return { url: `${service.baseUrl}/oidc/auth?${query}`, verifier };
}

type Tokens = { access_token: string; refresh_token?: string };

/** The partner's calls to the token endpoint, as a confidential client. */
async function tokenCall(body: Record<string, string>): Promise<Response> {
  return fetch(`${service.baseUrl}/oidc/token`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      authorization: `Basic ${Buffer.from(`partner:${SECRET}`).toString("base64")}`,
    },
    body: new URLSearchParams(body),
  });
}

/** The person signs in to the partner with their consent (Allow); the partner redeems its code for tokens. */
async function grantPartner(page: Page, email: string): Promise<Tokens> {
  const { url, verifier } = authorizeUrl();
  await page.goto(url);
  const form = page.getByLabel("Username or email");
  const consent = page.getByRole("button", { name: "Allow" });
  await form.or(consent).first().waitFor();
  if (await form.isVisible()) await signIn(page, email, PASSWORD);
  await consent.click();
  await page.waitForURL((target) => target.origin === site.origin);
  const code = site.lastTo("/partner")?.searchParams.get("code");
  expect(code).toBeTruthy();
  const answer = await tokenCall({
    grant_type: "authorization_code",
    code: code ?? "",
    redirect_uri: `${site.origin}/partner`,
    code_verifier: verifier,
  });
  expect(answer.status).toBe(200);
  const tokens = (await answer.json()) as Tokens;
  expect(tokens.refresh_token).toBeTruthy();
  return tokens;
}

/** A sign-in from another browser by the gateway's API (the sign-in page's own calls), leaving its session open. */
async function signInByApi(email: string): Promise<void> {
  const context = await browser.newContext({
    baseURL: service.baseUrl,
    userAgent: LINUX_FIREFOX.userAgent,
    extraHTTPHeaders: { "x-forwarded-for": `203.0.113.${(visitors++ % 250) + 1}`, "cf-ipcountry": "FR" },
  });
  try {
    const session = await context.request.get("/api/session");
    const csrf = session.headers()["x-csrf-token"] ?? "";
    const answer = await context.request.post("/api/account/login", {
      headers: { "x-csrf-token": csrf },
      data: { email, password: PASSWORD },
    });
    expect(answer.status()).toBe(200);
  } finally {
    await context.close();
  }
}

const section = (page: Page, name: string) => page.getByRole("region", { name });
const sessions = (page: Page) => section(page, "Where you're signed in");
const apps = (page: Page) => section(page, "Apps with access");
const activity = (page: Page) => section(page, "Recent activity");

/** Whole and accessible on a phone and a desktop, photographed on both. */
async function check(page: Page, name: string): Promise<void> {
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

/** Tabs through the page until `target` has the focus (at most `max` presses): the keyboard's way there. */
async function tabTo(page: Page, target: Locator, max = 40): Promise<void> {
  for (let i = 0; i < max; i++) {
    if (await isFocused(target)) return;
    await page.keyboard.press("Tab");
  }
  expect(await isFocused(target)).toBe(true);
}

describe("the security page (issue #27)", () => {
  it("lists the sign-ins, the apps and the activity in every brand on a phone and a desktop; another browser's sign-in ends by keyboard", async () => {
    const email = await person();
    const other = await browserOf(LINUX_FIREFOX, "FR");
    await signedInAt(other.page, email);
    const here = await browserOf(WINDOWS_CHROME, "DE");
    await grantPartner(here.page, email);
    // Edit account's Sign-in and security links to the page.
    await here.page.goto("/profile/edit");
    await here.page.getByRole("link", { name: "Devices, apps and activity" }).click();
    await here.page.getByRole("heading", { name: "Devices, apps and activity", level: 1 }).waitFor();

    // This browser is marked and signs out through the app's sign-out; the other has its own button.
    const mine = sessions(here.page).getByRole("listitem").filter({ hasText: "This browser" });
    await mine.getByText(WINDOWS_CHROME.words).waitFor();
    await mine.getByText("With a password · Germany").waitFor();
    expect(await mine.getByRole("link", { name: "Sign out", exact: true }).getAttribute("href")).toBe("/logout");
    const end = sessions(here.page).getByRole("button", { name: `Sign out of ${LINUX_FIREFOX.words}` });
    await end.waitFor();
    await sessions(here.page).getByText("With a password · France").waitFor();
    await sessions(here.page).getByRole("button", { name: "Sign out everywhere else" }).waitFor();
    // The partner: its brand, what it may do in the consent page's words, offline.
    const partner = apps(here.page).getByRole("listitem").filter({ hasText: "Partner Gallery" });
    await partner.getByText("Can act while you're away").waitFor();
    await partner.getByText("See your email address").waitFor();
    await partner.getByText("From Cosmos").waitFor();
    await activity(here.page).getByText("Signed in with a password").first().waitFor();
    await activity(here.page).getByText("Access given to Partner Gallery").waitFor();

    for (const brand of BRAND_IDS) {
      await here.page.goto(`${SECURITY}?theme=${brand}`);
      await end.waitFor();
      await partner.waitFor();
      await check(here.page, `security-page-${brand}`);
    }

    // By keyboard: Tab to the other browser's button, Enter; its entry is gone, this one stays.
    await tabTo(here.page, end);
    await here.page.keyboard.press("Enter");
    await sessions(here.page).getByText(`${LINUX_FIREFOX.words} is signed out.`).waitFor();
    await end.waitFor({ state: "detached" });
    // The button went with its entry: the section's heading has the focus, the message just below it.
    const heading = sessions(here.page).getByRole("heading", { name: "Where you're signed in" });
    await expect.poll(() => isFocused(heading)).toBe(true);
    await mine.waitFor();
    await activity(here.page).getByText("Signed out of a session").waitFor();

    // The other browser's next page needs a sign-in.
    await other.page.goto("/profile/edit");
    await other.page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor();
    await other.context.close();
    await here.context.close();
  });

  it("removes a site's access: it leaves the list, and its refresh and access tokens stop working", async () => {
    const email = await person();
    const here = await browserOf(WINDOWS_CHROME, "DE");
    const tokens = await grantPartner(here.page, email);
    await here.page.goto(SECURITY);
    const remove = apps(here.page).getByRole("button", { name: "Remove access for Partner Gallery" });
    await remove.click();
    await apps(here.page).getByText("Partner Gallery no longer has access to your account.").waitFor();
    await apps(here.page).getByText("No site or app has access to your account.").waitFor();
    await activity(here.page).getByText("Access removed for Partner Gallery").waitFor();
    await expectAccessible(here.page);

    const refreshed = await tokenCall({ grant_type: "refresh_token", refresh_token: tokens.refresh_token ?? "" });
    expect(refreshed.status).toBe(400);
    expect(((await refreshed.json()) as { error: string }).error).toBe("invalid_grant");
    const userinfo = await fetch(`${service.baseUrl}/oidc/me`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(userinfo.status).toBe(401);
    await here.context.close();
  });

  it("signs out everywhere else after a confirmation, the apps' offline access with it", async () => {
    const email = await person();
    const other = await browserOf(LINUX_FIREFOX, "FR");
    await signedInAt(other.page, email);
    const here = await browserOf(WINDOWS_CHROME, "DE");
    const tokens = await grantPartner(here.page, email);
    await here.page.goto(SECURITY);
    await apps(here.page).getByText("Partner Gallery").first().waitFor();
    const asked = here.page.waitForEvent("dialog");
    await sessions(here.page).getByRole("button", { name: "Sign out everywhere else" }).click();
    expect((await asked).message()).toContain("Sign out everywhere else?");
    await sessions(here.page).getByText("You are signed out everywhere else.").waitFor();
    // The message comes with the answer; the list is asked again after it: wait for its new state.
    await expect.poll(() => sessions(here.page).getByRole("listitem").count()).toBe(1);
    // The apps list follows: the partner's offline access ended with the other sign-ins.
    await apps(here.page).getByText("No site or app has access to your account.").waitFor();
    const refreshed = await tokenCall({ grant_type: "refresh_token", refresh_token: tokens.refresh_token ?? "" });
    expect(refreshed.status).toBe(400);
    await other.page.goto("/profile/edit");
    await other.page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor();
    await other.context.close();
    await here.context.close();
  });

  it("says on the password-change screen what a change ends", async () => {
    const email = await person();
    const here = await browserOf(WINDOWS_CHROME, "DE");
    await signedInAt(here.page, email, "/profile/edit", "Edit account");
    await here.page.getByRole("link", { name: "Change password" }).click();
    await here.page
      .getByText("Changing your password signs you out everywhere else and removes the access of apps", {
        exact: false,
      })
      .waitFor();
    await check(here.page, "password-change-ends");
    await here.context.close();
  });

  it("shows more of a long list with the cursor, the first new entry focused", async () => {
    const email = await person();
    const others = SECURITY_PAGE_SIZE + 1;
    for (let i = 0; i < others; i++) await signInByApi(email);
    const here = await browserOf(WINDOWS_CHROME, "DE");
    await signedInAt(here.page, email);
    // A first page (this browser's entry and a page of the others), then the rest with the cursor.
    const entries = sessions(here.page).getByRole("listitem");
    await entries.nth(SECURITY_PAGE_SIZE - 1).waitFor();
    const first = await entries.count();
    expect(first).toBeLessThan(others + 1);
    await sessions(here.page).getByRole("button", { name: "Show more" }).click();
    await entries.nth(others).waitFor();
    expect(await entries.count()).toBe(others + 1);
    await expect.poll(() => isFocused(entries.nth(first))).toBe(true);
    await expect.poll(() => sessions(here.page).getByRole("button", { name: "Show more" }).count()).toBe(0);
    // The activity pages the same way: one sign-in event per sign-in.
    const events = activity(here.page).getByRole("listitem");
    await activity(here.page).getByRole("button", { name: "Show more" }).click();
    await events.nth(SECURITY_PAGE_SIZE).waitFor();
    await expect.poll(() => isFocused(events.nth(SECURITY_PAGE_SIZE))).toBe(true);
    await here.context.close();
  });

  it("says the activity in Japanese", async () => {
    const email = await person();
    // From Japan, the page speaks Japanese from the start: the person signs in in Japanese.
    const here = await browserOf(WINDOWS_CHROME, "JP");
    await here.page.goto(`/?return_to=${encodeURIComponent(SECURITY)}`);
    await here.page.getByLabel("ユーザー名またはメールアドレス").fill(email);
    await here.page.getByLabel("パスワード", { exact: true }).fill(PASSWORD);
    await here.page.getByRole("button", { name: "ログイン", exact: true }).click();
    const list = section(here.page, "最近のアクティビティ");
    await here.page.getByRole("heading", { name: "デバイス、アプリ、アクティビティ", level: 1 }).waitFor();
    const signedIn = list.getByRole("listitem").filter({ hasText: "パスワードでログイン" }).first();
    await signedIn.getByText("Windows 10 の Chrome 131 · 日本", { exact: false }).waitFor();
    await expectAccessible(here.page);
    expect(await layoutProblems(here.page, "jp")).toEqual([]);
    await screenshot(here.page, "security-page-jp");
    await here.context.close();
  });
});
