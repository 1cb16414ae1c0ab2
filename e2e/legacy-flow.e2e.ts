import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BRANDS } from "@gatehouse/contract";
import { createRemoteJWKSet, jwtVerify } from "jose";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Service, startService } from "./global.ts";
import { createPerson, expectAccessible, launch, screenshot, signIn, uniqueEmail, visit } from "./support.ts";

const ROOT = join(import.meta.dirname, "..");
const PASSWORD = "correct horse battery";
const LEGACY_CLIENT = "legacy-site";
const SITE_NAME = "Legacy site";
/** The legacy client's registered redirect URIs (paths on its origin), one for each test's return address. */
const REGISTERED_PATHS = ["/callback", "/app", "/app?x=1", "/again", "/cloud", "/fresh", "/restarted", "/linked"];
/** A page of another site with a link to `to` (a query value, so it needs no escaping beyond the attribute's). */
const linkPage = (to: string) =>
  `<!doctype html><html lang="en"><title>Elsewhere</title><main><h1>Elsewhere</h1><a href="${to.replaceAll('"', "&quot;")}">Go</a></main>`;
const STATE_COOKIE = "gatehouse_legacy_state";

/**
 * A legacy site (issue #10 §3): a real program on a loopback host name of its own. Its page reads the token from
 * the fragment and hands it to its server, which verifies it against Gatehouse's JWKS — issuer, audience, expiry,
 * signature — and answers whose it is. It records what reached it (a fragment never does).
 */
interface Visit {
  url: URL;
  headers: IncomingHttpHeaders;
}
let site: Server;
let siteOrigin = "";
let plainOrigin = "";
/** Another site (issue #24 §2): its page links to us, so following the link is a cross-site navigation. */
let otherOrigin = "";
const visits: Visit[] = [];
let service: Service;
let browser: Browser;

const SITE_PAGE = `<!doctype html><html lang="en"><title>Legacy site</title><h1>Legacy site</h1><p id="result">…</p>
<script>
const token = new URLSearchParams(location.hash.slice(1)).get("access_token");
fetch("/verify", { method: "POST", body: token ?? "" })
  .then((r) => r.text())
  .then((text) => { document.getElementById("result").textContent = text; });
</script>`;

async function verified(token: string): Promise<string> {
  if (!token) return "no token";
  try {
    const jwks = createRemoteJWKSet(new URL(`${service.baseUrl}/oidc/jwks`));
    const { payload } = await jwtVerify(token, jwks, { issuer: `${service.baseUrl}/oidc`, audience: LEGACY_CLIENT });
    return `verified ${payload.sub}`;
  } catch (error) {
    return `refused ${(error as Error).message}`;
  }
}

function brandsFile(hosts: string[]): string {
  const brands = JSON.parse(readFileSync(join(ROOT, "packages/server/config/brands.json"), "utf8"));
  const path = join(mkdtempSync(join(tmpdir(), "gatehouse-legacy-")), "brands.json");
  writeFileSync(path, JSON.stringify({ ...brands, returnHosts: [...brands.returnHosts, ...hosts] }));
  return path;
}

beforeAll(async () => {
  site = createServer((request, response) => {
    const url = new URL(request.url ?? "/", siteOrigin);
    if (request.method === "POST" && url.pathname === "/verify") {
      let body = "";
      request.on("data", (chunk) => {
        body += chunk;
      });
      request.on("end", () => void verified(body).then((text) => response.end(text)));
      return;
    }
    response.setHeader("content-type", "text/html; charset=utf-8");
    if (url.pathname === "/elsewhere") return void response.end(linkPage(String(url.searchParams.get("to"))));
    if (url.pathname !== "/favicon.ico") visits.push({ url, headers: request.headers });
    response.end(SITE_PAGE);
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  const port = (site.address() as AddressInfo).port;
  siteOrigin = `http://legacy.localhost:${port}`;
  // On the return list, but no legacy client's: returned to without a token.
  plainOrigin = `http://plain.localhost:${port}`;
  otherOrigin = `http://elsewhere.localhost:${port}`;
  const clients = [
    {
      client_id: LEGACY_CLIENT,
      client_name: SITE_NAME,
      client_secret: "legacy-secret-of-at-least-forty-three-characters",
      // Issue #24 §2: a token goes to these addresses exactly, and to no other path of the site.
      redirect_uris: REGISTERED_PATHS.map((path) => `${siteOrigin}${path}`),
      legacy: true,
    },
  ];
  const clientsFile = join(mkdtempSync(join(tmpdir(), "gatehouse-legacy-")), "clients.json");
  writeFileSync(clientsFile, JSON.stringify({ clients }));
  service = await startService({
    CLIENTS_FILE: clientsFile,
    BRANDS_FILE: brandsFile(["legacy.localhost", "plain.localhost"]),
  });
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await new Promise((resolve) => site?.close(resolve));
});

async function person(): Promise<string> {
  const email = uniqueEmail("legacy");
  await createPerson({ email, password: PASSWORD, first: "Ann", last: "Lee", country: "DE" }, service.databaseUrl);
  return email;
}

const loginWith = (returnTo: string, extra: Record<string, string> = {}) =>
  `/?${new URLSearchParams({ return_to: returnTo, ...extra })}`;

/** The site's page once its server has judged the token. */
async function siteVerdict(page: Page): Promise<string> {
  await page.waitForURL((url) => url.origin === siteOrigin);
  const result = page.locator("#result");
  await result.filter({ hasNotText: "…" }).waitFor();
  return (await result.textContent()) ?? "";
}

async function userGuid(context: BrowserContext): Promise<string> {
  return (await (await context.request.get(`${service.baseUrl}/api/session`)).json()).UserGUID;
}

const lastVisit = () => visits.at(-1);

describe("the legacy flow (spec §4, issue #10 §3)", () => {
  it("takes return_to through sign-in to the site, which verifies its token against the JWKS", async () => {
    const email = await person();
    const { page, context } = await visit(browser, loginWith(`${siteOrigin}/app?x=1`), {}, service.baseUrl);
    // The login page started the flow: the provider's sign-in, on our screen, in the host's brand.
    await page.waitForURL((url) => url.pathname === "/service_login");
    await page.getByRole("heading", { level: 1, name: "Sign in to continue to Gatehouse" }).waitFor();
    const cookie = (await context.cookies()).find((c) => c.name === STATE_COOKIE);
    expect(cookie).toMatchObject({ path: "/legacy_login/callback", sameSite: "Lax", httpOnly: false });
    await expectAccessible(page);
    await signIn(page, email, PASSWORD);

    expect(await siteVerdict(page)).toBe(`verified ${await userGuid(context)}`);
    const arrived = new URL(page.url());
    expect(arrived.pathname + arrived.search).toBe("/app?x=1");
    // The token travels in the fragment: the site's server never saw it, and no Referer told it where it came from.
    expect(lastVisit()?.url.search).toBe("?x=1");
    expect(lastVisit()?.headers.referer).toBeUndefined();
    expect((await context.cookies()).some((c) => c.name === STATE_COOKIE)).toBe(false);

    // Signed in: the login page sends the next visit on at once, with a fresh token and no form.
    await page.goto(`${service.baseUrl}${loginWith(`${siteOrigin}/again`)}`);
    expect(await siteVerdict(page)).toBe(`verified ${await userGuid(context)}`);
    expect(lastVisit()?.url.pathname).toBe("/again");
    await context.close();
  });

  it("runs on every brand's host, in that brand, with its own callback", async () => {
    const email = await person();
    const cloudBase = service.baseUrl.replace("//localhost", "//cloud.localhost");
    const { page, context } = await visit(browser, loginWith(`${siteOrigin}/cloud`), {}, cloudBase);
    await page.waitForURL((url) => url.pathname === "/service_login");
    expect(new URL(page.url()).hostname).toBe("cloud.localhost");
    await page.getByRole("heading", { level: 1, name: `Sign in to continue to ${BRANDS.cloud.name}` }).waitFor();
    expect(await page.evaluate(() => document.documentElement.dataset.brand)).toBe("cloud");
    await page.setViewportSize({ width: 390, height: 844 });
    await expectAccessible(page);
    await screenshot(page, "legacy-service-login-cloud-phone");
    await signIn(page, email, PASSWORD);
    expect(await siteVerdict(page)).toMatch(/^verified [0-9a-f-]{36}$/u);
    expect(lastVisit()?.url.pathname).toBe("/cloud");
    await context.close();
  });

  it("forces a fresh sign-in with prompt=login, then hands the site its token", async () => {
    const email = await person();
    const { page, context } = await visit(browser, loginWith(`${siteOrigin}/app`), {}, service.baseUrl);
    await page.waitForURL((url) => url.pathname === "/service_login");
    await signIn(page, email, PASSWORD);
    await siteVerdict(page);

    await page.goto(`${service.baseUrl}${loginWith(`${siteOrigin}/fresh`, { prompt: "login" })}`);
    // Signed in, and still asked: the login page itself, its form and no redirect.
    await page.getByRole("heading", { level: 1, name: "Sign in" }).waitFor();
    // The network quiet (networkidle): a redirect on its way would still be loading.
    await page.waitForLoadState("networkidle");
    expect(new URL(page.url()).pathname).toBe("/");
    await signIn(page, email, PASSWORD);
    expect(await siteVerdict(page)).toBe(`verified ${await userGuid(context)}`);
    expect(lastVisit()?.url.pathname).toBe("/fresh");
    await context.close();
  });

  it("refuses a callback whose state does not match the cookie: There was a problem finalizing your authentication.", async () => {
    const email = await person();
    const { page, context } = await visit(browser, loginWith(`${siteOrigin}/app`), {}, service.baseUrl);
    await page.waitForURL((url) => url.pathname === "/service_login");
    // Another flow's state (or a forged callback): the cookie no longer names this request.
    const cookie = (await context.cookies()).find((c) => c.name === STATE_COOKIE);
    if (!cookie) throw new Error("the login page set no state cookie");
    await context.addCookies([{ ...cookie, value: "another-state" }]);
    const before = visits.length;
    await signIn(page, email, PASSWORD);
    await page.waitForURL((url) => url.pathname === "/error");
    await page.getByText("There was a problem finalizing your authentication.").waitFor();
    expect(new URL(page.url()).searchParams.get("error_code")).toBe("legacy_invalid_authentication");
    await expectAccessible(page);
    await screenshot(page, "legacy-state-mismatch");
    expect(visits.length).toBe(before);
    await context.close();
  });

  it("restarts login when the state cookie is missing, and then finishes", async () => {
    const email = await person();
    const { page, context } = await visit(browser, loginWith(`${siteOrigin}/restarted`), {}, service.baseUrl);
    await page.waitForURL((url) => url.pathname === "/service_login");
    await context.clearCookies({ name: STATE_COOKIE });
    await signIn(page, email, PASSWORD);
    // Back to the login page with the same return address, whose new flow finishes with the fresh session.
    expect(await siteVerdict(page)).toBe(`verified ${await userGuid(context)}`);
    expect(lastVisit()?.url.pathname).toBe("/restarted");
    await context.close();
  });

  it("sends a return address that is no legacy site's on without a token, after the login page's own form", async () => {
    const email = await person();
    const { page, context } = await visit(browser, loginWith(`${plainOrigin}/home`), {}, service.baseUrl);
    await page.getByRole("heading", { level: 1, name: "Sign in" }).waitFor();
    await signIn(page, email, PASSWORD);
    await page.waitForURL((url) => url.origin === plainOrigin);
    expect(new URL(page.url()).hash).toBe("");
    await context.close();
  });

  it("GET /api/legacy_token sends a signed-in person to the site with its token, and a visitor to the error page", async () => {
    const continueTo = encodeURIComponent(`${siteOrigin}/linked`);
    const { page, context } = await visit(browser, `/api/legacy_token?continue=${continueTo}`, {}, service.baseUrl);
    await page.getByText("There was a problem finalizing your authentication.").waitFor();
    expect(new URL(page.url()).searchParams.get("error_code")).toBe("legacy_invalid_authentication");

    const email = await person();
    await page.goto(`${service.baseUrl}${loginWith(`${plainOrigin}/home`)}`);
    await signIn(page, email, PASSWORD);
    await page.waitForURL((url) => url.origin === plainOrigin);
    await page.goto(`${service.baseUrl}/api/legacy_token?continue=${continueTo}`);
    expect(await siteVerdict(page)).toBe(`verified ${await userGuid(context)}`);
    expect(lastVisit()?.url.pathname).toBe("/linked");
    await context.close();
  });

  /** A signed-in person's browser, signed in through a return address that gets no token. */
  async function signedInPage() {
    const email = await person();
    const visited = await visit(browser, loginWith(`${plainOrigin}/home`), {}, service.baseUrl);
    await signIn(visited.page, email, PASSWORD);
    await visited.page.waitForURL((url) => url.origin === plainOrigin);
    return visited;
  }

  /** Follows a link to `target` from another site's page: Chromium marks the navigation Sec-Fetch-Site: cross-site. */
  async function followLinkFromElsewhere(page: Page, target: string): Promise<void> {
    await page.goto(`${otherOrigin}/elsewhere?${new URLSearchParams({ to: target })}`);
    await page.getByRole("link", { name: "Go" }).click();
    await page.waitForURL((url) => url.origin !== otherOrigin);
  }

  it("gives no token to an address of the legacy site that is not registered, such as its open redirect (issue #24 §2)", async () => {
    const openRedirect = `${siteOrigin}/redirect?to=${encodeURIComponent(plainOrigin)}`;
    const { page, context } = await signedInPage();
    const before = visits.length;
    await page.goto(`${service.baseUrl}/api/legacy_token?continue=${encodeURIComponent(openRedirect)}`);
    await page.getByText("An error has occurred during authentication. Try to sign in again.").waitFor();
    expect(new URL(page.url()).searchParams.get("error_code")).toBe("legacy_token_error");
    // The login page's flow too: the provider refuses the address as a resource, so no code is ever issued.
    await page.goto(`${service.baseUrl}${loginWith(openRedirect)}`);
    await page.waitForURL((url) => url.pathname === "/error");
    await page.getByText("An error has occurred during authentication. Try to sign in again.").waitFor();
    expect(new URL(page.url()).searchParams.get("error_code")).toBe("legacy_token_error");
    expect(visits.length).toBe(before);
    await context.close();
  });

  it("answers another site's link with a page whose button hands the token over (issue #24 §2)", async () => {
    const { page, context } = await signedInPage();
    const before = visits.length;
    const tokenUrl = `${service.baseUrl}/api/legacy_token?continue=${encodeURIComponent(`${siteOrigin}/callback`)}`;
    const arrived = page.waitForResponse((r) => r.url() === tokenUrl);
    await followLinkFromElsewhere(page, tokenUrl);
    const answer = await arrived;
    expect((await answer.request().allHeaders())["sec-fetch-site"]).toBe("cross-site");
    expect(answer.status()).toBe(200);
    // The page holds no token and the site has heard nothing; the person decides.
    await page.getByRole("heading", { level: 1, name: `Continue to ${SITE_NAME}?` }).waitFor();
    expect(await page.content()).not.toContain("access_token");
    expect(visits.length).toBe(before);
    await expectAccessible(page);
    await screenshot(page, "legacy-continue-page");
    await page.getByRole("button", { name: `Continue to ${SITE_NAME}` }).click();
    expect(await siteVerdict(page)).toBe(`verified ${await userGuid(context)}`);
    expect(lastVisit()?.url.pathname).toBe("/callback");
    await context.close();
  });

  it("sends a signed-in person whom another site sent to the login page to the same button page", async () => {
    const { page, context } = await signedInPage();
    const before = visits.length;
    await followLinkFromElsewhere(page, `${service.baseUrl}${loginWith(`${siteOrigin}/callback`)}`);
    await page.getByRole("button", { name: `Continue to ${SITE_NAME}` }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/api/legacy_token");
    expect(visits.length).toBe(before);
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, "legacy-continue-page-phone");
    await page.getByRole("button", { name: `Continue to ${SITE_NAME}` }).click();
    expect(await siteVerdict(page)).toBe(`verified ${await userGuid(context)}`);
    await context.close();
  });
});
