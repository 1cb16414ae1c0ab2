import { readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  BRAND_IDS,
  BRANDS,
  type BrandId,
  type Catalog,
  LANGUAGE_CODES,
  LANGUAGE_COOKIE,
  type Language,
  loadCatalog,
} from "@gatehouse/contract";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../packages/server/test/ports.ts";
import { POPUP_CLOSE_MESSAGE } from "../packages/web/src/screens/popup/opener.ts";
import { type Service, startService } from "./global.ts";
import {
  createPerson,
  DESKTOP,
  expectAccessible,
  isFocused,
  launch,
  PHONE,
  screenshot,
  signIn,
  stubExternalSites,
  uniqueEmail,
  visit,
} from "./support.ts";

/**
 * Issue #10 §4 in Chromium: the desktop-app pages in every language and brand, the Enscape wording (by host and by
 * the provider's `client_brand`), /ula-login-error's description shown as text, /close with a real popup opened by
 * a brand site on another loopback host name (the message reaches an allowed opener only), and /logout?ua=.
 */
const ROOT = join(import.meta.dirname, "..");
const PASSWORD = "Granite-Kettle-58";

/** The brand site that opens the sign-in popup: allowed in the brands file's returnHosts. */
const SITE_HOST = "site.localhost";
/** Another loopback site, not on the list. */
const EVIL_HOST = "evil.localhost";

let browser: Browser;
let service: Service;
let site: Server;
let sitePort = 0;

/** The default brands file with the brand site added to the return-address allow-list. */
function brandsFile(): string {
  const brands = JSON.parse(readFileSync(join(ROOT, "packages/server/config/brands.json"), "utf8"));
  const path = join(tmpdir(), `gatehouse-desktop-brands-${process.pid}.json`);
  writeFileSync(path, JSON.stringify({ ...brands, returnHosts: [...brands.returnHosts, SITE_HOST] }));
  return path;
}

/**
 * A brand site's page, as docs/protocols.md "Sign-in popup" tells sites to write it: it opens the popup and records every
 * message it receives (the test reads them; a real site would check `event.origin` first).
 */
const SITE_PAGE = `<!doctype html><html lang="en"><title>Brand site</title><h1>Brand site</h1><script>
window.received = [];
window.addEventListener("message", (event) => window.received.push({ origin: event.origin, data: event.data }));
</script>`;

beforeAll(async () => {
  browser = await launch();
  service = await startService({ BRANDS_FILE: brandsFile() });
  sitePort = await freePort();
  site = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(SITE_PAGE));
  await new Promise<void>((resolve) => site.listen(sitePort, "127.0.0.1", resolve));
});
afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await new Promise((resolve) => site?.close(resolve));
});

/** The Gatehouse origin on another of its host names (the brands file maps *.localhost names to brands). */
const gatehouseOn = (host: string) => service.baseUrl.replace("//localhost:", `//${host}:`);
const siteOrigin = (host: string) => `http://${host}:${sitePort}`;

/** A visitor whose pages open in `language` (the footer's cookie), on a phone. */
async function visitor(language: Language, base = service.baseUrl): Promise<{ context: BrowserContext; page: Page }> {
  const { context, page } = await visit(browser, "about:blank", {}, base);
  await context.addCookies([{ name: LANGUAGE_COOKIE, value: language, url: base }]);
  await stubExternalSites(context);
  await page.setViewportSize(PHONE);
  return { context, page };
}

/** A catalog text with its `{{app}}` filled in, as i18next fills it. */
const withApp = (text: string, app: string) => text.replaceAll("{{app}}", app);

function expectedWording(t: Catalog, named: boolean) {
  const words = named ? t.desktopApp.named : t.desktopApp.generic;
  const fill = (text: string) => withApp(text, BRANDS.archviz.name);
  return {
    signedIn: fill(words.signedIn),
    signedOut: fill(words.signedOut),
    returnToApp: fill(words.returnToApp),
    defaultError: fill(words.defaultError),
    closeAfterError: fill(words.closeAfterError),
  };
}

const heading = (page: Page, name: string) => page.getByRole("heading", { name, level: 1, exact: true });
const main = (page: Page) => page.getByRole("main");

describe.each(LANGUAGE_CODES)("the desktop-app pages in %s", (language) => {
  // The last column: the brand whose site the signed-in page offers, the one the client names (issue #25).
  it.each([
    ["generic, on the default host", "localhost", "", false, "default"],
    ["Enscape, on the visualisation brand's host", "archviz.localhost", "", true, "archviz"],
    [
      "Enscape, named by the provider's client_brand on the default host",
      "localhost",
      "client_brand=archviz",
      true,
      "archviz",
    ],
    [
      "generic, for another client brand on the visualisation host",
      "archviz.localhost",
      "client_brand=engine",
      false,
      "engine",
    ],
  ] as const)("%s", async (_case, host, query, named, offered) => {
    const t = await loadCatalog(language);
    const words = expectedWording(t, named);
    const base = gatehouseOn(host);
    const brand = BRANDS[host === "localhost" ? "default" : "archviz"];
    const { context, page } = await visitor(language, base);
    const q = query ? `?${query}` : "";

    await page.goto(`/ula-login-success${q}`);
    await heading(page, words.signedIn).waitFor();
    await main(page).getByText(words.returnToApp, { exact: true }).waitFor();
    expect(await page.title()).toBe(`${words.signedIn} | ${brand.name}`);
    // Whoever stays finds a way on: the brand's site, or signing in again.
    const home = t.loginSuccess.home.replace("{{brand}}", BRANDS[offered].name);
    expect(await main(page).getByRole("link", { name: home, exact: true }).getAttribute("href")).toBe(
      BRANDS[offered].links.home,
    );

    await page.goto(`/ula-logout-success${q}`);
    await heading(page, words.signedOut).waitFor();
    await main(page).getByText(words.returnToApp, { exact: true }).waitFor();
    const again = main(page).getByRole("link", { name: t.logout.signInAgain, exact: true });
    expect(await again.getAttribute("href")).toBe("/");

    await page.goto(`/ula-login-error${q}`);
    await heading(page, t.titles.signInFailed).waitFor();
    await main(page).getByText(words.defaultError, { exact: true }).waitFor();
    // Like the other desktop pages, it tells the person to close the window (issue #25).
    await main(page).getByText(words.closeAfterError, { exact: true }).waitFor();
    expect(await page.title()).toBe(`${t.titles.signInFailed} | ${brand.name}`);
    // Links of the page's own brand: sign-in here, and the brand's Help Center once, the footer's.
    expect(await main(page).getByRole("link", { name: t.titles.signIn, exact: true }).getAttribute("href")).toBe("/");
    const help = page.getByRole("link", { name: t.footer.support, exact: true });
    expect(await help.count()).toBe(1);
    expect(await help.getAttribute("href")).toBe(brand.links.support);
    await context.close();
  });
});

describe("/ula-login-error's description", () => {
  it("shows error_description instead of the default, as text: markup stays characters and runs nothing", async () => {
    const markup = `<img src=x onerror="window.injected=1"><b>Access denied</b> & "quotes"`;
    const { context, page } = await visitor("en");
    await page.goto(`/ula-login-error?error_description=${encodeURIComponent(markup)}`);
    await main(page).getByText(markup, { exact: true }).waitFor();
    const en = await loadCatalog("en");
    expect(await main(page).getByText(en.desktopApp.generic.defaultError).count()).toBe(0);
    expect(await main(page).locator("img, b").count()).toBe(0);
    expect(await page.evaluate(() => (window as { injected?: number }).injected)).toBeUndefined();
    await context.close();
  });

  it("shows the default for a description of blanks", async () => {
    const { context, page } = await visitor("en");
    await page.goto("/ula-login-error?error_description=%20%20");
    await main(page).getByText("We could not sign you in to the application.", { exact: true }).waitFor();
    await context.close();
  });

  it("is usable by keyboard: Tab reaches Sign in, Enter opens the sign-in page", async () => {
    const { context, page } = await visitor("en");
    await page.goto("/ula-login-error?error_description=Token%20expired");
    await main(page).getByText("Token expired").waitFor();
    const signInLink = main(page).getByRole("link", { name: "Sign in", exact: true });
    for (let presses = 0; presses < 10 && !(await isFocused(signInLink)); presses++) await page.keyboard.press("Tab");
    expect(await isFocused(signInLink)).toBe(true);
    await page.keyboard.press("Enter");
    await heading(page, "Sign in").waitFor();
    await context.close();
  });
});

describe.each(BRAND_IDS)("the desktop-app pages and /close in the %s brand", (id: BrandId) => {
  it("are axe-clean and photographed on a phone and a desktop", async () => {
    const { context, page } = await visitor("en");
    const pages = [
      ["ula-login-success", "/ula-login-success"],
      ["ula-login-error", "/ula-login-error?error_description=The%20sign-in%20request%20expired."],
      ["ula-logout-success", "/ula-logout-success"],
      ["close", "/close"],
    ] as const;
    for (const [name, path] of pages) {
      await page.goto(`${path}${path.includes("?") ? "&" : "?"}theme=${id}`);
      await main(page).locator("h1").waitFor();
      for (const [viewport, size] of [
        ["phone", PHONE],
        ["desktop", DESKTOP],
      ] as const) {
        await page.setViewportSize(size);
        await expectAccessible(page);
        await screenshot(page, `${name}-${id}-${viewport}`);
      }
      await page.setViewportSize(PHONE);
    }
    await context.close();
  });
});

/** Opens `/close` in a real popup from a page at `openerUrl`; resolves with the popup once it has loaded. */
async function openClosePopup(opener: Page, closeUrl: string): Promise<Page> {
  const [popup] = await Promise.all([
    opener.waitForEvent("popup"),
    opener.evaluate((url) => void window.open(url, "gatehouse-sign-in", "popup,width=480,height=640"), closeUrl),
  ]);
  return popup;
}

const received = (page: Page) =>
  page.evaluate(() => (window as unknown as { received: { origin: string; data: unknown }[] }).received);

describe("/close (spec §2 CLOSE)", () => {
  it("tells an allowed opener on another host name that the popup may close, then closes itself", async () => {
    const { context, page } = await visit(browser, `${siteOrigin(SITE_HOST)}/`);
    const popup = await openClosePopup(page, `${service.baseUrl}/close?origin=${siteOrigin(SITE_HOST)}`);
    await popup.waitForEvent("close");
    await expect.poll(() => received(page)).toEqual([{ origin: service.baseUrl, data: POPUP_CLOSE_MESSAGE }]);
    await context.close();
  });

  it("ends a real sign-in in the popup: the site hears from /close once the person has signed in", async () => {
    const email = uniqueEmail("popup.sign.in");
    await createPerson({ email, password: PASSWORD, first: "Pia", last: "Popup", country: "DE" }, service.databaseUrl);
    const { context, page } = await visit(browser, `${siteOrigin(SITE_HOST)}/`);
    const returnTo = `${service.baseUrl}/close?origin=${encodeURIComponent(siteOrigin(SITE_HOST))}`;
    const popup = await openClosePopup(page, `${service.baseUrl}/?return_to=${encodeURIComponent(returnTo)}`);
    await heading(popup, "Sign in").waitFor();
    expect(await received(page)).toEqual([]);
    expect((await signIn(popup, email, PASSWORD)).ok()).toBe(true);
    await popup.waitForEvent("close");
    await expect.poll(() => received(page)).toEqual([{ origin: service.baseUrl, data: POPUP_CLOSE_MESSAGE }]);
    await context.close();
  });

  it("tells an opener of its own origin when none is named", async () => {
    const { context, page } = await visit(browser, "/", {}, service.baseUrl);
    await page.evaluate(() => {
      const messages: unknown[] = [];
      (window as unknown as { received: unknown[] }).received = messages;
      window.addEventListener("message", (event) => messages.push({ origin: event.origin, data: event.data }));
    });
    const popup = await openClosePopup(page, `${service.baseUrl}/close`);
    await popup.waitForEvent("close");
    await expect.poll(() => received(page)).toEqual([{ origin: service.baseUrl, data: POPUP_CLOSE_MESSAGE }]);
    await context.close();
  });

  it("sends nothing to an opener whose origin is not allowed, stays open and says the window can be closed", async () => {
    const { context, page } = await visit(browser, `${siteOrigin(EVIL_HOST)}/`);
    const popup = await openClosePopup(page, `${service.baseUrl}/close?origin=${siteOrigin(EVIL_HOST)}`);
    await popup.getByText("You can close this window now.").waitFor();
    expect(popup.isClosed()).toBe(false);
    expect(await received(page)).toEqual([]);
    await context.close();
  });

  it("sends nothing to an opener that claims an allowed origin it does not have (never '*')", async () => {
    const { context, page } = await visit(browser, `${siteOrigin(EVIL_HOST)}/`);
    // The popup believes the claim and posts to the allowed origin: the browser delivers it only there.
    const popup = await openClosePopup(page, `${service.baseUrl}/close?origin=${siteOrigin(SITE_HOST)}`);
    await popup.waitForEvent("close");
    // Give a stray message every chance to arrive: a round trip through the opener's own event loop.
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 0)));
    expect(await received(page)).toEqual([]);
    await context.close();
  });

  it("without an opener tells the person they can close the window", async () => {
    const { context, page } = await visitor("de");
    await page.goto(`/close?origin=${siteOrigin(SITE_HOST)}`);
    const de = await loadCatalog("de");
    await heading(page, de.titles.closeWindow).waitFor();
    await page.getByRole("status").filter({ hasText: de.app.closeWindow }).waitFor();
    expect(await page.title()).toBe(`${de.titles.closeWindow} | ${BRANDS.default.name}`);
    expect(page.isClosed()).toBe(false);
    const home = de.loginSuccess.home.replace("{{brand}}", BRANDS.default.name);
    expect(await main(page).getByRole("link", { name: home }).getAttribute("href")).toBe(BRANDS.default.links.home);
    await context.close();
  });
});

describe("/logout?ua= (spec §2 LOGOUT)", () => {
  async function signedIn(path = "/"): Promise<{ context: BrowserContext; page: Page }> {
    const email = uniqueEmail("desktop.logout");
    await createPerson({ email, password: PASSWORD, first: "Dana", last: "App", country: "DE" }, service.databaseUrl);
    const { context, page } = await visit(browser, path, {}, service.baseUrl);
    await stubExternalSites(context);
    expect((await signIn(page, email, PASSWORD)).ok()).toBe(true);
    // Signed in: this host lands on the account page (the tests below check that it no longer opens).
    await page.waitForURL((url) => url.pathname === "/profile/edit");
    await page.getByLabel("First name", { exact: true }).waitFor();
    return { context, page };
  }

  it("ends the session and lands on the desktop-app sign-out page", async () => {
    const { context, page } = await signedIn();
    await page.goto("/logout?ua=desktop-app%2F3.5");
    await page.waitForURL((url) => url.pathname === "/ula-logout-success");
    await heading(page, "You are signed out").waitFor();
    // The session is gone: the account page sends the visitor to sign in.
    await page.goto("/profile/edit");
    await heading(page, "Sign in").waitFor();
    await context.close();
  });

  it("ends the session for a ua longer than the gateway takes too", async () => {
    const { context, page } = await signedIn();
    await page.goto(`/logout?ua=${"u".repeat(200)}`);
    await heading(page, "You are signed out").waitFor();
    await page.goto("/profile/edit");
    await heading(page, "Sign in").waitFor();
    await context.close();
  });

  it("keeps the app's wording: client_brand passes on to the sign-out page", async () => {
    const { context, page } = await signedIn();
    await page.goto("/logout?ua=enscape&client_brand=archviz");
    await heading(page, "You are signed out of Enscape").waitFor();
    expect(new URL(page.url()).search).toBe("?client_brand=archviz");
    await context.close();
  });

  it("without ua stays the web sign-out page", async () => {
    const { context, page } = await signedIn();
    await page.goto("/logout");
    await page.getByText("You have been signed out.").waitFor();
    expect(new URL(page.url()).pathname).toBe("/logout");
    await context.close();
  });
});
