import { BRAND_IDS, BRANDS, LANGUAGE_COOKIE, type Language, loadCatalog } from "@gatehouse/contract";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { atProvider, useFederation } from "./federation-fixture.ts";
import { federationPages, PASSWORD } from "./federation-pages.ts";
import { layoutProblems, settled } from "./layout.ts";
import { expectAccessible, PHONE, screenshot, signIn, uniqueEmail } from "./support.ts";

/**
 * Issue #25 "Buttons and layout people recognise" and "Typography" in Chromium, with the stand-in identity
 * provider (Google, Facebook, Trimble and Acme's company): the providers' marks, one layout for sign-in and
 * registration, the corporate address carried in the tab's storage, the dead ends, the studio's primary button,
 * and the typography items.
 */
const fx = useFederation();
const { open, person } = federationPages(fx);

/** The ways in, in page order: each one's mark (the svg inside it) and its accessible name. */
async function waysIn(page: Page) {
  await page.getByRole("button", { name: /Google/u }).waitFor();
  return page.locator("main").evaluate((main) => {
    const divider = Array.from(main.querySelectorAll("div")).find(
      (d) => d.textContent === "or" && d.children.length === 0,
    );
    const ways = Array.from(main.querySelectorAll("button, a")).filter((el) => el.querySelector("svg[data-mark]"));
    return {
      // The divider comes right before the first way in, and after the form.
      dividerFirst: Boolean(
        divider && ways[0] && divider.compareDocumentPosition(ways[0]) & Node.DOCUMENT_POSITION_FOLLOWING,
      ),
      afterForm: Boolean(
        divider &&
          main.querySelector("form") &&
          (main.querySelector("form") as Element).compareDocumentPosition(divider) & Node.DOCUMENT_POSITION_FOLLOWING,
      ),
      ways: ways.map((el) => {
        const style = getComputedStyle(el);
        const mark = el.querySelector("svg[data-mark]") as SVGSVGElement;
        const box = mark.getBoundingClientRect();
        return {
          mark: mark.dataset.mark,
          tag: el.tagName,
          text: el.textContent,
          markSize: [Math.round(box.width), Math.round(box.height)],
          look: [
            style.backgroundColor,
            style.borderTopColor,
            style.color,
            style.fontWeight,
            Math.round(el.getBoundingClientRect().height),
          ].join(" "),
        };
      }),
    };
  });
}

/** Every request the page makes that leaves our own origin (a provider's image, a font, a tracker). */
function thirdPartyRequests(page: Page, origin: string): string[] {
  const seen: string[] = [];
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.protocol.startsWith("http") && url.origin !== origin) seen.push(request.url());
  });
  return seen;
}

describe("the providers' buttons", () => {
  it("carry each provider's mark, drawn from our bundle, in the same order and weight on sign-in and registration", async () => {
    const { page, context } = await open("about:blank");
    const elsewhere = thirdPartyRequests(page, fx.service.baseUrl.replace(/\/$/u, ""));
    await page.setViewportSize(PHONE);
    await page.goto("/");
    const signIn = await waysIn(page);
    await page.goto("/register");
    const signUp = await waysIn(page);

    for (const [page, expected] of [
      [
        signIn,
        ["Sign in with Google", "Continue with Facebook", "Sign in with Trimble", "Sign in with corporate email"],
      ],
      [
        signUp,
        ["Sign up with Google", "Continue with Facebook", "Sign up with Trimble", "Sign up with corporate email"],
      ],
    ] as const) {
      expect(page.dividerFirst && page.afterForm).toBe(true);
      expect(page.ways.map((w) => w.text)).toEqual(expected);
      expect(page.ways.map((w) => w.mark)).toEqual(["google", "facebook", "trimble", "corporate"]);
      for (const way of page.ways) expect(way.markSize).toEqual([20, 20]);
      // One weight for every way in, the corporate link's too.
      expect(new Set(page.ways.map((w) => w.look)).size).toBe(1);
    }
    expect(signUp.ways.map((w) => `${w.tag} ${w.look}`)).toEqual(signIn.ways.map((w) => `${w.tag} ${w.look}`));
    // Google's "G" in its four colours, Facebook's blue.
    const fills = await page
      .locator('svg[data-mark="google"] path')
      .evaluateAll((paths) => paths.map((p) => p.getAttribute("fill")));
    expect(fills).toEqual(["#EA4335", "#4285F4", "#FBBC05", "#34A853"]);
    expect(await page.locator('svg[data-mark="facebook"] circle').getAttribute("fill")).toBe("#0866FF");
    // The accessible name is the visible text alone (the marks are decorative).
    await page.getByRole("button", { name: "Continue with Facebook", exact: true }).waitFor();
    expect(elsewhere).toEqual([]);
    await context.close();
  });

  it.each(BRAND_IDS)("sign-in and registration in brand %s on a phone (axe, layout, screenshots)", async (brand) => {
    const { page, context } = await open("about:blank");
    await page.setViewportSize(PHONE);
    for (const [name, path, heading] of [
      ["signin", "/", "Sign in"],
      ["register", "/register", "Create account"],
    ] as const) {
      await page.goto(`${path}?theme=${brand}`);
      await page.getByRole("heading", { name: heading, level: 1 }).waitFor();
      await page.locator('svg[data-mark="corporate"]').waitFor();
      await settled(page);
      await expectAccessible(page);
      expect(await layoutProblems(page, "en")).toEqual([]);
      await screenshot(page, `ways-in-${name}-${brand}-phone`);
    }
    await context.close();
  });
});

describe("corporate sign-in", () => {
  it.each([
    ["/", "Username or email", "Sign in with corporate email"],
    ["/register", "Email", "Sign up with corporate email"],
  ])("from %s carries the typed address in the tab's storage, never in the URL", async (path, label, link) => {
    const { page, context } = await open(path);
    const email = uniqueEmail("carried");
    await page.getByLabel(label, { exact: true }).fill(email);
    await page.getByRole("link", { name: link }).click();
    await page.getByRole("heading", { name: "Corporate sign-in", level: 1 }).waitFor();
    expect(await page.getByLabel("Corporate email").inputValue()).toBe(email);
    const url = decodeURIComponent(page.url());
    expect(url).not.toContain(email);
    expect(url).not.toContain(email.split("@")[0]);
    await context.close();
  });
});

describe("no dead ends", () => {
  it("Check your email after sign-up links back to sign-in", async () => {
    const { page, context } = await open("about:blank");
    await page.goto("/?theme=default");
    await page.evaluate(() => sessionStorage.setItem("gatehouse.registeredEmail", "someone@example.com"));
    await page.goto("/register/complete");
    await page.getByRole("heading", { name: "Check your email", level: 1 }).waitFor();
    await page.getByRole("link", { name: "Back to sign in" }).click();
    await page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor();
    await context.close();
  });

  it("social registration's Cancel ends the pending registration on the server and goes back to sign-in", async () => {
    const { page, context } = await open("/register");
    await page.getByRole("button", { name: "Sign up with Google" }).click();
    await atProvider(page, fx.idp, { email: uniqueEmail("cancelled"), firstName: "Cy", lastName: "Ng" });
    await page.getByRole("button", { name: "CREATE ACCOUNT" }).waitFor();
    expect((await page.request.get("/api/account/social/pending")).status()).toBe(200);
    await page.getByRole("button", { name: "Cancel" }).click();
    await page.getByText("You cancelled the sign-in with Google.", { exact: false }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/");
    expect((await page.request.get("/api/account/social/pending")).status()).toBe(401);
    await context.close();
  });
});

describe("the studio sign-in", () => {
  it("/trimble/login's only action is a primary button with Trimble's mark", async () => {
    const { page, context } = await open("/trimble/login");
    const button = page.getByRole("button", { name: "Sign in with Trimble", exact: true });
    await button.waitFor();
    expect(await page.locator("main").getByRole("button").count()).toBe(1);
    const primary = await page.getByRole("button", { name: "Sign in with Trimble" }).evaluate((el) => ({
      background: getComputedStyle(el).backgroundColor,
      marks: el.querySelectorAll('svg[data-mark="trimble"]').length,
    }));
    const rgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)).join(", ")})`;
    expect(primary).toEqual({ background: rgb(BRANDS.default.colors.primary), marks: 1 });
    await context.close();
  });
});

/** A phone in a language: the language cookie, as the page's own list sets it. */
async function inLanguage(language: Language, path: string) {
  const visitor = await open("about:blank");
  await visitor.context.addCookies([{ name: LANGUAGE_COOKIE, value: language, url: fx.service.baseUrl }]);
  await visitor.page.setViewportSize(PHONE);
  await visitor.page.goto(path);
  return visitor;
}

describe("typography", () => {
  it("the French 'Se connecter' link stays on one line at 390 px", async () => {
    const { page, context } = await inLanguage("fr", "/register");
    const link = page.locator("main").getByRole("link", { name: "Se connecter", exact: true });
    await link.waitFor();
    expect(await link.evaluate((el) => el.getClientRects().length)).toBe(1);
    await screenshot(page, "ways-in-register-fr-phone");
    await page.goto("/");
    await page.locator('svg[data-mark="corporate"]').waitFor();
    await screenshot(page, "ways-in-signin-fr-phone");
    await context.close();
  });

  it("a Japanese alert's lines use the box's width", async () => {
    const { page, context } = await inLanguage("jp", "/?cancelled=google");
    const jp = await loadCatalog("jp");
    const text = jp.login.cancelled.replace("{{provider}}", "Google");
    const alert = page.getByText(text);
    await alert.waitFor();
    const widths = await alert.evaluate((el) => {
      const range = document.createRange();
      range.selectNodeContents(el);
      const lines = new Map<number, number>();
      for (const rect of Array.from(range.getClientRects()))
        lines.set(Math.round(rect.top), (lines.get(Math.round(rect.top)) ?? 0) + rect.width);
      const style = getComputedStyle(el);
      const box = el.clientWidth - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight);
      return { box, lines: [...lines.values()] };
    });
    expect(widths.lines.length).toBeGreaterThan(1);
    // Every line but the last fills the box to within two characters.
    for (const line of widths.lines.slice(0, -1)) expect(line).toBeGreaterThan(widths.box - 32);
    await screenshot(page, "ways-in-alert-jp-phone");
    await context.close();
  });

  it("the cloud brand's promo card has the form card's width on a phone", async () => {
    const { page, context } = await open("about:blank");
    await page.setViewportSize(PHONE);
    await page.goto("/?theme=cloud");
    const promo = page.locator("aside");
    await promo.waitFor();
    const [card, aside] = await Promise.all([page.locator("main").boundingBox(), promo.boundingBox()]);
    expect(Math.round(aside?.width ?? 0)).toBe(Math.round(card?.width ?? -1));
    await context.close();
  });

  it("the archviz Authentication complete page has its own title and heading", async () => {
    const email = uniqueEmail("archviz");
    await person(email);
    const { page, context } = await open("/?theme=archviz");
    expect((await signIn(page, email, PASSWORD)).status()).toBe(200);
    await page.goto("/login/success?theme=archviz");
    await page.getByRole("heading", { name: "Authentication complete", level: 1 }).waitFor();
    expect(await page.title()).toBe(`Authentication complete | ${BRANDS.archviz.name}`);
    await context.close();
  });
});
