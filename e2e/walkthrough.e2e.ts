import {
  BRANDS,
  type BrandId,
  type Catalog,
  LANGUAGE_COOKIE,
  LANGUAGES,
  type Language,
  loadCatalog,
} from "@gatehouse/contract";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, it, type TestContext } from "vitest";
import { layoutProblems, settled } from "./layout.ts";
import {
  admin,
  baseUrl,
  devMail,
  expectAccessible,
  launch,
  REGISTER_PASSWORD,
  reportOnFailure,
  screenshot,
  stubExternalSites,
} from "./support.ts";

/**
 * Issue #8's walkthrough: every built screen (the trial flow's too, issue #12), as a new user meets it, in Japanese, Korean, German and French, in
 * three brands (light, the visualisation brand with its own pages, the dark cross-brand theme), on a 390×844
 * phone and a 1280×800 desktop. Each screen is measured (layout.ts) and photographed for a person to look at.
 * The account's name and address are as long as the rules allow, so long words are on every screen that shows them.
 */
const LANGUAGES_WALKED: readonly Language[] = ["jp", "kr", "de", "fr"];
const BRANDS_WALKED: readonly BrandId[] = ["default", "archviz", "cross"];
const VIEWPORTS = [
  { name: "phone", width: 390, height: 844 },
  { name: "desktop", width: 1280, height: 800 },
] as const;
/** A walk takes about 20 s alone; three side by side on a loaded machine take longer. */
const WALK_TIMEOUT_MS = 150_000;

/** A 72-character first name without a space (the longest the rules allow), and a long address. */
const LONG_FIRST = "Maximilianaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa".slice(0, 72);
let people = 0;
const longEmail = () =>
  `walkthrough.${process.pid}.${++people}.${"x".repeat(30)}@an-unusually-long-subdomain.of-a-long-company-name.example.com`;
/** The longest address the e-mail rule allows (254 characters): 64 before the @, labels of 63. */
const LONGEST_EMAIL = `${"r".repeat(64)}@${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(57)}.com`;

let browser: Browser;
let setupPath: string;
beforeAll(async () => {
  browser = await launch();
  // One invitation serves every walk: looking at the set-up page does not spend its code.
  const invited = `walkthrough.invite.${process.pid}@example.com`;
  await admin("user:invite", "--email", invited);
  setupPath = await mailedLink(invited, "/account/password-setup");
});
afterAll(() => browser?.close());

/** The newest mailed link to `path` for a recipient, read from the dev mailbox (the e2e service has no SMTP). */
async function mailedLink(recipient: string, path: string): Promise<string> {
  const link = new RegExp(`https?://[^\\s"<>]*${path.replace(/[/.]/gu, "\\$&")}\\?[^\\s"<>]+`, "u");
  const { body } = await devMail(recipient, (text) => link.test(text));
  const url = new URL((link.exec(body) as RegExpExecArray)[0].replaceAll("&amp;", "&"));
  // The walk picks its own language; the link's `lang` (the mail's language) would override it.
  url.searchParams.delete("lang");
  return url.pathname + url.search;
}

let visitors = 0;
class Walk {
  readonly problems: string[] = [];
  readonly context: BrowserContext;
  readonly page: Page;
  readonly language: Language;
  readonly brand: BrandId;
  readonly t: Catalog;

  private constructor(context: BrowserContext, page: Page, language: Language, brand: BrandId, t: Catalog) {
    this.context = context;
    this.page = page;
    this.language = language;
    this.brand = brand;
    this.t = t;
  }

  static async start(language: Language, brand: BrandId, onFailed: TestContext["onTestFailed"]): Promise<Walk> {
    const tag = LANGUAGES[language].tag;
    const context = await browser.newContext({
      baseURL: baseUrl(),
      locale: tag,
      // Each walk is its own visitor, so per-address limits stay per walk.
      extraHTTPHeaders: { "x-forwarded-for": `203.0.113.${(visitors++ % 250) + 1}` },
    });
    reportOnFailure(context, onFailed);
    await context.addCookies([{ name: LANGUAGE_COOKIE, value: language, url: baseUrl() }]);
    await stubExternalSites(context);
    return new Walk(context, await context.newPage(), language, brand, await loadCatalog(language));
  }

  /** Opens a path in this walk's brand. */
  async go(path: string): Promise<void> {
    const url = new URL(path, baseUrl());
    url.searchParams.set("theme", this.brand);
    await this.page.goto(url.pathname + url.search);
  }

  heading(name: string) {
    return this.page.getByRole("heading", { name, level: 1 });
  }

  /** Measures and photographs the screen as it is now, on the phone and on the desktop. */
  async look(screen: string): Promise<void> {
    const tag = LANGUAGES[this.language].tag;
    for (const viewport of VIEWPORTS) {
      await this.page.setViewportSize(viewport);
      await settled(this.page);
      for (const problem of await layoutProblems(this.page, tag))
        this.problems.push(`${screen} (${viewport.name}): ${problem}`);
      // Every photographed screen is also checked with axe (docs/development.md "Test it"), in this language and theme.
      if (viewport === VIEWPORTS[0])
        await expectAccessible(this.page).catch((error: Error) => this.problems.push(`${screen}: ${error.message}`));
      await screenshot(this.page, `walkthrough/${this.brand}-${this.language}-${screen}-${viewport.name}`);
    }
    await this.page.setViewportSize(VIEWPORTS[0]);
  }
}

describe.concurrent.each(LANGUAGES_WALKED)("walkthrough in %s", (language) => {
  // The brands walk side by side (one browser, a context each): most of a walk is waiting for the server.
  it.concurrent.for<BrandId>([...BRANDS_WALKED])(
    "%s brand: every screen fits phone and desktop, nothing overlaps, no dead end",
    { timeout: WALK_TIMEOUT_MS },
    async (brand, { expect, onTestFailed }) => {
      const walk = await Walk.start(language, brand, onTestFailed);
      const { page, t } = walk;
      const email = longEmail();

      await walk.go("/");
      await walk.heading(t.login.heading.default).waitFor();
      await walk.look("login");

      await walk.go("/register");
      await walk.heading(t.register.title.default).waitFor();
      await walk.look("register-step1");
      await page.getByLabel(t.register.email, { exact: true }).fill(email);
      await page.getByLabel(t.register.password, { exact: true }).fill(REGISTER_PASSWORD);
      await page.getByRole("button", { name: t.register.continue }).click();
      await walk.heading(t.register.stepTitle).waitFor();
      await page.getByLabel(t.register.firstName, { exact: true }).fill(LONG_FIRST);
      await page.getByLabel(t.register.lastName, { exact: true }).fill("Vandenberghe-Oyelaran");
      const country = page.getByRole("combobox", { name: t.register.country });
      // Under a loaded machine the list can take longer than expect.poll's default second to arrive.
      await expect.poll(() => country.locator("option").count(), { timeout: 15_000 }).toBeGreaterThan(200);
      await country.selectOption("JP");
      await page.getByText(t.botCheck.verified).waitFor({ timeout: 30_000 });
      await walk.look("register-step2");
      await page.getByRole("button", { name: t.register.submit }).click();
      await walk.heading(t.registerComplete.heading).waitFor();
      await walk.look("register-complete");

      await walk.go(await mailedLink(email, "/account/activate"));
      const active = BRANDS[brand].traits.richWelcome
        ? t.activate.welcomeHeading.replace("{{brand}}", BRANDS[brand].name)
        : t.activate.successHeading;
      await walk.heading(active).waitFor();
      await walk.look("activate");

      await walk.go("/account/recover");
      await walk.heading(t.recover.heading).waitFor();
      await walk.look("recover");
      await page.getByLabel(t.recover.email).fill(LONGEST_EMAIL);
      await page.getByRole("button", { name: t.recover.submit }).click();
      await walk.heading(t.recover.thanksHeading).waitFor();
      await walk.look("recover-thanks");
      await walk.go("/account/recover");
      await page.getByLabel(t.recover.email).fill(email);
      await page.getByRole("button", { name: t.recover.submit }).click();
      await walk.heading(t.recover.thanksHeading).waitFor();
      await walk.go(await mailedLink(email, "/account/password-reset"));
      await walk.heading(t.reset.heading).waitFor();
      await walk.look("reset");

      await walk.go(setupPath);
      await walk.heading(t.setup.heading).waitFor();
      await walk.look("setup");

      await walk.go("/");
      await page.getByLabel(t.login.email).fill(email);
      await page.getByLabel(t.login.password, { exact: true }).fill(REGISTER_PASSWORD);
      await page.getByRole("button", { name: t.login.submit, exact: true }).click();
      if (BRANDS[brand].traits.authenticationCompletePage) {
        await walk.heading(t.loginSuccess.heading).waitFor();
        await walk.look("login-success");
      } else {
        // The host's landing: the account page on the development brands file's localhost (issue #24 §3).
        await page.waitForURL((url) => url.pathname === "/profile/edit");
      }

      await walk.go("/profile/edit");
      await page.getByLabel(t.profile.firstName, { exact: true }).waitFor();
      await walk.look("edit-profile");
      await page.getByLabel(t.profile.deletePassword, { exact: true }).fill(REGISTER_PASSWORD);
      await page.getByRole("button", { name: t.profile.deleteRequest }).click();
      await page.getByRole("status").filter({ hasText: email }).waitFor();
      await walk.look("delete-requested");

      await walk.go("/account/password-change");
      await walk.heading(t.change.heading).waitFor();
      await walk.look("change-password");

      await walk.go(await mailedLink(email, "/account/delete"));
      await walk.heading(t.titles.destroyAccount).waitFor();
      await walk.look("delete-account");

      await walk.go(`/error?error_description=${"x".repeat(4000)}`);
      await walk.heading(t.errorPage.defaultTitle).waitFor();
      await walk.look("error-long-description");
      await walk.go("/no/such/page");
      await walk.heading(t.notFound.heading).waitFor();
      await walk.look("not-found");

      // Corporate sign-in (issue #11): its form with the field's message, its error page, and a social screen
      // opened without a waiting sign-in (the provider's round trips are walked in federation.e2e.ts).
      await walk.go("/corporate_login");
      await walk.heading(t.corporateLogin.heading).waitFor();
      await page.getByRole("button", { name: t.corporateLogin.submit }).click();
      await page.getByText(t.validation.loginEmail.required).waitFor();
      await walk.look("corporate-login");
      await walk.go(`/corporate_login/error?error_code=external_idp_error&error_id=${crypto.randomUUID()}`);
      await walk.heading(t.errorPage.external_idp_error.title).waitFor();
      await walk.look("corporate-login-error");
      await walk.go("/link/existing/social?email=someone%40example.com");
      await walk.heading(t.social.expiredHeading).waitFor();
      await walk.look("social-expired");

      // The desktop-app pages (the Enscape wording on the visualisation brand) and the popup's /close.
      const desktop = BRANDS[brand].traits.namesDesktopApp ? t.desktopApp.named : t.desktopApp.generic;
      const forApp = (text: string) => text.replaceAll("{{app}}", BRANDS[brand].name);
      await walk.go("/ula-login-success");
      await walk.heading(forApp(desktop.signedIn)).waitFor();
      await walk.look("ula-login-success");
      await walk.go(`/ula-login-error?error_description=${"x".repeat(4000)}`);
      await walk.heading(t.titles.signInFailed).waitFor();
      await walk.look("ula-login-error-long-description");
      await walk.go("/ula-logout-success");
      await walk.heading(forApp(desktop.signedOut)).waitFor();
      await walk.look("ula-logout-success");
      await walk.go("/close");
      await walk.heading(t.titles.closeWindow).waitFor();
      await walk.look("close");

      // The trial flow (issue #12): a signed-in visitor's confirmation first.
      await walk.go("/trial/email-confirm?productCode=WALK-1");
      await walk.heading(t.trial.confirm.heading).waitFor();
      await page.getByText(email).waitFor();
      await walk.look("trial-email-confirm");

      await walk.go("/logout");
      await page.getByText(t.logout.done).waitFor();
      await walk.look("logout");

      // Signed out: the email check, a new address's trial registration and its success, the expired link, and a
      // known address's trial sign-in with its recovery.
      const trialEmail = longEmail();
      await walk.go("/trial/email-check?productCode=WALK-1");
      await walk.heading(t.trial.emailCheck.heading).waitFor();
      await walk.look("trial-email-check");
      await page.getByLabel(t.register.workEmail).fill(trialEmail);
      await page.getByRole("button", { name: t.trial.emailCheck.continue }).click();
      await walk.heading(t.register.title.trial).waitFor();
      await page.getByLabel(t.register.firstName, { exact: true }).fill(LONG_FIRST);
      await page.getByLabel(t.register.lastName, { exact: true }).fill("Vandenberghe-Oyelaran");
      await page.getByLabel(t.register.password, { exact: true }).fill(REGISTER_PASSWORD);
      const trialCountry = page.getByRole("combobox", { name: t.register.country });
      await expect.poll(() => trialCountry.locator("option").count(), { timeout: 15_000 }).toBeGreaterThan(200);
      await trialCountry.selectOption("JP");
      await page.getByText(t.botCheck.verified).waitFor({ timeout: 30_000 });
      await walk.look("trial-register");
      await page.getByRole("button", { name: t.register.submit }).click();
      await walk.heading(t.trial.success.heading).waitFor();
      await walk.look("trial-register-success");
      await walk.go("/trial/link-expired?productCode=WALK-1");
      await walk.heading(t.trial.expired.heading).waitFor();
      await walk.look("trial-link-expired");
      await walk.go("/trial/email-check?productCode=WALK-1");
      await page.getByLabel(t.register.workEmail).fill(email);
      await page.getByRole("button", { name: t.trial.emailCheck.continue }).click();
      await walk.heading(t.login.heading.trial).waitFor();
      await walk.look("trial-login");
      await page.getByRole("link", { name: t.login.forgotPassword }).click();
      await walk.heading(t.recover.heading).waitFor();
      await walk.look("trial-recover");

      await walk.context.close();
      expect(walk.problems).toEqual([]);
    },
  );
});
