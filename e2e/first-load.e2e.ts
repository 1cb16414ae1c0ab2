import { type Catalog, loadCatalog } from "@gatehouse/contract";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseUrl, launch, visit } from "./support.ts";

/**
 * The first load (issue #9): the HTML names every chunk and style the first screen needs, in the page's language,
 * so the browser fetches them all in one wave with the entry, and nothing is discovered only once the entry runs.
 */
let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(() => browser.close());

/** Scripts and styles of the build, by path, as the page requests them. */
function assetRequests(page: Page): string[] {
  const requested: string[] = [];
  page.on("request", (request) => {
    const { pathname } = new URL(request.url());
    if (/^\/assets\/.+\.(?:js|css)$/u.test(pathname)) requested.push(pathname);
  });
  return requested;
}

/** Every module, module preload and stylesheet the HTML names in its own markup. */
function namedByHtml(html: string): Set<string> {
  const pattern = /<(?:script type="module"[^>]* src|link rel="(?:modulepreload|stylesheet)"[^>]* href)="([^"]+)"/gu;
  return new Set([...html.matchAll(pattern)].map((match) => match[1] ?? ""));
}

describe("the first load of the sign-in page", () => {
  const languages: [string, Catalog][] = [];
  beforeAll(async () => {
    for (const language of ["en", "de"]) languages.push([language, await loadCatalog(language as "en" | "de")]);
  });

  it.each(["en", "de"])("in %s, requests only chunks the HTML names, and shows the form", async (language) => {
    const catalog = languages.find(([code]) => code === language)?.[1] as Catalog;
    const { page, context } = await visit(browser, "about:blank");
    await context.addCookies([{ name: "lang", value: language, url: baseUrl() }]);
    const requested = assetRequests(page);
    const response = await page.goto("/");
    const named = namedByHtml((await response?.text()) ?? "");

    await page.getByRole("heading", { name: catalog.login.heading.default, level: 1 }).waitFor();
    await page.getByRole("textbox", { name: catalog.login.email }).waitFor();
    const beforeVisible = [...requested];
    expect(beforeVisible.filter((path) => !named.has(path))).toEqual([]);
    // Few files, each a round trip on a phone's link (vite.config.ts groups them): the entry, the build's runtime,
    // the app frame, the sign-in screen and its chunk, the catalog; the frame's and the screen's styles.
    expect(beforeVisible.filter((path) => path.endsWith(".js")).length).toBeLessThanOrEqual(6);
    expect(beforeVisible.filter((path) => path.endsWith(".css")).length).toBeLessThanOrEqual(2);
    expect(beforeVisible.some((path) => path.endsWith(".js"))).toBe(true);
    // What the page ran is what the HTML named: every script resource it loaded came from the HTML's links.
    const loadedScripts = await page.evaluate(() =>
      performance
        .getEntriesByType("resource")
        .map((entry) => new URL(entry.name).pathname)
        .filter((path) => path.startsWith("/assets/") && path.endsWith(".js")),
    );
    expect(loadedScripts.filter((path) => !named.has(path))).toEqual([]);
    await context.close();
  });

  it.each(["/", "/register", "/account/recover"])(
    "%s loads without a CSP violation or a console error",
    async (path) => {
      const { page, context } = await visit(browser, "about:blank");
      const problems: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error") problems.push(message.text());
      });
      page.on("pageerror", (error) => problems.push(error.message));
      await page.addInitScript(() => {
        document.addEventListener("securitypolicyviolation", (event) =>
          console.error(`CSP violation: ${event.violatedDirective} ${event.sourceFile}`),
        );
      });
      await page.goto(path);
      await page.getByRole("heading", { level: 1 }).waitFor();
      await page.waitForLoadState("networkidle");
      expect(problems).toEqual([]);
      await context.close();
    },
  );

  it("gives the logo its size before the file arrives, so nothing shifts", async () => {
    const { page, context } = await visit(browser, "/");
    const logo = page.locator("header img");
    await logo.waitFor();
    const size = await logo.evaluate((img: HTMLImageElement) => ({
      width: img.getAttribute("width"),
      height: img.getAttribute("height"),
      natural: [img.naturalWidth, img.naturalHeight],
    }));
    expect(size.width).not.toBeNull();
    expect([Number(size.width), Number(size.height)]).toEqual(size.natural);
    await context.close();
  });
});

describe("the back/forward cache", () => {
  let bfcacheBrowser: Browser;
  beforeAll(async () => {
    // Playwright turns the back/forward cache off by default; this browser keeps it, as a visitor's does.
    bfcacheBrowser = await launch({ backForwardCache: true });
  });
  afterAll(() => bfcacheBrowser.close());

  it("restores the sign-in page from it after going on and coming back", async () => {
    const { page, context } = await visit(bfcacheBrowser, "about:blank");
    const cdp = await context.newCDPSession(page);
    await cdp.send("Page.enable");
    const notUsed: unknown[] = [];
    cdp.on("Page.backForwardCacheNotUsed", (event) => notUsed.push(event.notRestoredExplanations));
    await page.addInitScript(() =>
      window.addEventListener("pageshow", (event) => {
        if (event.persisted) document.documentElement.dataset.restored = "yes";
      }),
    );
    // The page is settled once the passkey autofill has its options (a request still under way when the page is
    // left keeps it out of the cache: a person leaving within that moment gets a fresh load, which is fine).
    const autofillReady = page.waitForResponse((r) => r.url().endsWith("/api/sign-in/passkey/options"));
    await page.goto("/");
    await page.getByRole("textbox", { name: "Username or email" }).waitFor();
    await autofillReady;
    await page.goto("/account/recover");
    await page.getByRole("heading", { level: 1 }).waitFor();
    await page.goBack({ waitUntil: "commit" });
    await page.getByRole("textbox", { name: "Username or email" }).waitFor();
    expect(await page.evaluate(() => document.documentElement.dataset.restored), JSON.stringify(notUsed)).toBe("yes");
    await context.close();
  });
});
