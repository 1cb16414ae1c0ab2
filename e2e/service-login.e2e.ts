import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BRAND_IDS, BRANDS, type BrandId } from "@gatehouse/contract";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Service, startService } from "./global.ts";
import { createPerson, expectAccessible, launch, screenshot, signIn, uniqueEmail, visit } from "./support.ts";

const PASSWORD = "correct horse battery";

/** The desktop app (or site) behind a loopback redirect: a real listener that records the codes it receives. */
let app: Server;
const received: URL[] = [];
let appOrigin = "";
let service: Service;
let browser: Browser;

beforeAll(async () => {
  app = createServer((request, response) => {
    received.push(new URL(request.url ?? "/", appOrigin));
    response.setHeader("content-type", "text/html; charset=utf-8");
    response.end("<!doctype html><title>App</title><p>Signed in</p>");
  });
  await new Promise<void>((resolve) => app.listen(0, "127.0.0.1", resolve));
  appOrigin = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
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
      redirect_uris: [`${appOrigin}/partner`],
      brand: "cloud",
    },
  ];
  const file = join(mkdtempSync(join(tmpdir(), "gatehouse-clients-")), "clients.json");
  writeFileSync(file, JSON.stringify({ clients }));
  service = await startService({ CLIENTS_FILE: file });
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await new Promise((resolve) => app.close(resolve));
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
  return { url: `${service.baseUrl}/oidc/auth?${query}`, state };
}

/** The last request the app received on a path (the browser also asks it for a favicon). */
const lastTo = (path: string) => received.filter((url) => url.pathname === path).at(-1);

async function person() {
  const email = uniqueEmail("service");
  await createPerson({ email, password: PASSWORD, first: "Ann", last: "Lee", country: "DE" }, service.databaseUrl);
  return email;
}

describe("a site's or app's sign-in (SERVICE_LOGIN)", () => {
  it.each(BRAND_IDS.map((brand) => [brand]))("shows in the client's brand (%s), axe-clean", async (brand) => {
    const { page, context } = await visit(browser, "about:blank", {}, service.baseUrl);
    await page.setViewportSize(brand === "archviz" ? { width: 390, height: 844 } : { width: 1280, height: 800 });
    await page.goto(authorizeUrl(`app-${brand}`, `${appOrigin}/callback`).url);
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
    const { url, state } = authorizeUrl("app-archviz", `${appOrigin}/callback`, { login_hint: email });
    const { page, context } = await visit(browser, url, {}, service.baseUrl);
    const address = page.getByLabel("Username or email");
    await address.waitFor();
    expect(await address.inputValue()).toBe(email); // the site's login_hint
    await page.getByLabel("Password", { exact: true }).focus();
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press("Enter");
    await page.waitForURL((target) => target.origin === appOrigin);
    const callback = lastTo("/callback");
    expect(callback?.searchParams.get("state")).toBe(state);
    expect(callback?.searchParams.get("code")).toBeTruthy();

    // Signed in already: the next sign-in of another app finishes at once, without a form.
    const next = authorizeUrl("app-engine", `${appOrigin}/callback`);
    await page.goto(next.url);
    await page.waitForURL((target) => target.origin === appOrigin);
    expect(lastTo("/callback")?.searchParams.get("state")).toBe(next.state);
    await context.close();
  });

  it("offers a person without an account to create one, and brings them back to this sign-in", async () => {
    const { url } = authorizeUrl("app-cloud", `${appOrigin}/callback`);
    const { page, context } = await visit(browser, url, {}, service.baseUrl);
    await page.getByRole("link", { name: "Create account" }).click();
    await page.waitForURL((target) => target.pathname === "/register");
    expect(new URL(page.url()).searchParams.get("return_to")).toBe("/service_login");
    await page.getByRole("heading", { level: 1, name: "Create account" }).waitFor();
    await context.close();
  });

  it("asks for consent for a site that is not the vendor's own, then continues", async () => {
    const email = await person();
    const { url, state } = authorizeUrl("partner", `${appOrigin}/partner`);
    const { page, context } = await visit(browser, url, {}, service.baseUrl);
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
    await page.waitForURL((target) => target.origin === appOrigin);
    expect(lastTo("/partner")?.searchParams.get("state")).toBe(state);
    expect(lastTo("/partner")?.searchParams.get("code")).toBeTruthy();
    await context.close();
  });

  it("shows our error page, not the library's, for a redirect address the app did not register", async () => {
    const { page, context } = await visit(
      browser,
      authorizeUrl("partner", "https://evil.example/partner").url,
      {},
      service.baseUrl,
    );
    await page.getByRole("heading", { level: 1, name: "Sign-in request refused" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/error");
    await expectAccessible(page);
    await context.close();
  });
});
