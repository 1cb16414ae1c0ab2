import { execFile } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { promisify } from "node:util";
import { type Browser, type BrowserContext, chromium, type Locator, type Page, type Response } from "playwright-core";
import { afterAll, beforeAll, expect, inject, onTestFailed, vi } from "vitest";
import type { TestSmtp } from "../packages/server/test/smtp.ts";
import { CHROMIUM, COMPILE_CACHE, FULL_CHROMIUM, runEnvironment, type Service, startService } from "./global.ts";
import { TEST_PASSWORDS } from "./passwords.ts";
import { startTestSmtp } from "./run.ts";

const ROOT = resolve(import.meta.dirname, "..");
/**
 * Where screenshots land; E2E_SCREENSHOTS moves a lane's elsewhere, and `off` takes none: CI's PostgreSQL lane, whose
 * screens are the SQLite lane's (the same web app) and whose pictures nobody looks at (.ci/run, issue #28).
 */
const SCREENSHOTS = process.env.E2E_SCREENSHOTS || join(import.meta.dirname, "screenshots");

export const baseUrl = () => inject("baseUrl");

/** The phone and desktop every screen is looked at on (a 390×844 phone, a 1280×800 desktop). */
export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 800 };

/**
 * The dev mailbox's waiter (a service without SMTP_URL keeps its mail at /dev/mail): the address and body of the
 * newest mail to `recipient` whose body `having` accepts, once it is there. The mailbox is a web page, so it is
 * asked again until then (vi.waitFor).
 */
export function devMail(
  recipient: string,
  having: (body: string) => boolean = () => true,
  base: string = baseUrl(),
): Promise<{ url: string; body: string }> {
  return vi.waitFor(
    async () => {
      const list = await (await fetch(`${base}/dev/mail`)).text();
      for (const [, to, id] of list.matchAll(/<td>([^<]*)<\/td><td><a href="\/dev\/mail\/([^"]+)">/gu)) {
        if (to !== recipient) continue;
        const url = `${base}/dev/mail/${id}`;
        const body = await (await fetch(url)).text();
        if (having(body)) return { url, body };
      }
      throw new Error(`no mail to ${recipient} in the dev mailbox`);
    },
    { timeout: 15_000, interval: 100 },
  );
}

/**
 * Debian's Chromium, headless, with the flags this machine needs (no background networking: no network here).
 * `backForwardCache` keeps the cache Playwright switches off by default, as a visitor's browser has it (issue #9).
 */
export function launch(options: { backForwardCache?: boolean } = {}): Promise<Browser> {
  return chromium.launch({
    // The headless shell has no back/forward cache (BackForwardCacheDisabledForDelegate): the desktop browser does.
    executablePath: options.backForwardCache ? FULL_CHROMIUM : CHROMIUM,
    ...(options.backForwardCache ? { ignoreDefaultArgs: ["--disable-back-forward-cache"] } : {}),
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
    ],
  });
}

let visitors = 0;

type FailureHook = (handler: () => Promise<void>) => void;

/**
 * Makes a failed browser test explain itself in CI's log: each page's address and visible text when the test
 * failed, and what went wrong on the way (gateway answers of 400 and above, console errors, page crashes). A
 * concurrent test passes its own context's `onTestFailed`; others get the current test's.
 */
export function reportOnFailure(context: BrowserContext, onFailed: FailureHook = onTestFailed): void {
  const events: string[] = [];
  const pages: Page[] = [];
  const at = () => new Date().toISOString().slice(11, 23);
  context.on("page", (page) => {
    pages.push(page);
    page.on("console", (m) => void (m.type() === "error" && events.push(`${at()} console: ${m.text()}`)));
    page.on("pageerror", (e) => void events.push(`${at()} page error: ${e.message}`));
  });
  context.on("response", (r) => {
    const url = new URL(r.url());
    if (r.status() >= 400 && url.pathname.startsWith("/api/"))
      events.push(`${at()} ${r.status()} ${r.request().method()} ${url.pathname}`);
  });
  context.on(
    "requestfailed",
    (r) => void events.push(`${at()} failed ${r.method()} ${r.url()}: ${r.failure()?.errorText}`),
  );
  try {
    onFailed(async () => {
      const shown = await Promise.all(
        pages.map(async (page) => {
          const text = await page
            .evaluate(() => document.body.innerText.replace(/\s+/g, " ").slice(0, 600))
            .catch((e: Error) => `(unreadable: ${e.message})`);
          return `page ${page.url()} at ${at()}: ${text}`;
        }),
      );
      console.error(["Browser state when the test failed:", ...shown, ...events].join("\n  "));
    });
  } catch {
    // Opened outside a test (a hook): nothing to report to.
  }
}

export interface Visit {
  context: BrowserContext;
  page: Page;
}

/** A fresh browser profile (cookies and all) with optional request headers, e.g. the proxy's country. */
export async function visit(
  browser: Browser,
  path: string,
  headers: Record<string, string> = {},
  base = baseUrl(),
): Promise<Visit> {
  // Each visitor comes from its own address, as behind the load balancer, so per-address limits stay per visitor.
  const address = { "x-forwarded-for": `198.51.100.${(visitors++ % 250) + 1}` };
  const context = await browser.newContext({
    baseURL: base,
    extraHTTPHeaders: { ...address, ...headers },
    locale: "en-US",
  });
  reportOnFailure(context);
  const page = await context.newPage();
  await page.goto(path);
  return { context, page };
}

export interface Person {
  email: string;
  password: string;
  first: string;
  last: string;
  country: string;
  /** More `user:create` options, e.g. --inactive or --must-change-password. */
  flags?: string[];
}

/** Creates an account with the real admin CLI (`user:create`) on a test server's database. */
export function createPerson(person: Person, databaseUrl: string = inject("databaseUrl")): Promise<string> {
  return adminOn(
    databaseUrl,
    "user:create",
    ...["--email", person.email, "--password", person.password],
    ...["--first", person.first, "--last", person.last, "--country", person.country],
    ...(person.flags ?? []),
  );
}

/** Runs the real admin CLI on the test server's database. */
export function admin(...args: string[]): Promise<string> {
  return adminOn(inject("databaseUrl"), ...args);
}

/** Runs the real admin CLI on a given database (a service a test started itself). */
export function adminOn(databaseUrl: string, ...args: string[]): Promise<string> {
  return adminWith({ DATABASE_URL: databaseUrl }, ...args);
}

/**
 * Runs the real admin CLI with the environment of the service it works for (database, PUBLIC_URL, BRANDS_FILE), and
 * what every service of the run shares (on PostgreSQL its SESSION_SECRET: global.ts `runEnvironment`).
 */
export async function adminWith(env: Record<string, string>, ...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [join(ROOT, "packages/server/src/admin/cli.ts"), ...args],
    {
      env: { ...process.env, ...COMPILE_CACHE, NODE_ENV: "test", ...runEnvironment(), ...env },
    },
  );
  return stdout;
}

let counter = 0;
/** A unique address per test, so tests never share an account or a throttle. */
export function uniqueEmail(name: string): string {
  counter += 1;
  return `${name}.${process.pid}.${Date.now()}.${counter}@example.com`;
}

/**
 * Brand sites are on the public Internet, which this machine cannot reach: the browser gets a one-line page for
 * them instead, so a test can see that it was sent there. Gatehouse itself is never stubbed.
 */
export async function stubExternalSites(context: BrowserContext): Promise<void> {
  await context.route(/^https:\/\/(?!localhost)[^/]+\.example\//u, (route) =>
    route.fulfill({
      status: 200,
      contentType: "text/html",
      body: `<!doctype html><title>external</title><h1>External site</h1>`,
    }),
  );
}

const AXE_SOURCE = readFileSync(join(ROOT, "node_modules/axe-core/axe.min.js"), "utf8");

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * Checks the page as it is now with axe-core against WCAG 2.1 A and AA (names, roles, labels, contrast, landmarks,
 * language) plus axe's best practices, and fails with every violation named. axe is evaluated through the
 * browser's debugging protocol, so the page keeps its real Content-Security-Policy.
 */
export async function expectAccessible(page: Page): Promise<void> {
  if (!(await page.evaluate("typeof window.axe === 'object'"))) await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(`axe.run(document, {
    runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] },
  }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) })))`)) as AxeViolation[];
  const report = violations.map(
    (v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`,
  );
  if (report.length > 0) expect.fail(`axe on ${page.url()}:\n${report.join("\n")}`);
}

/**
 * Holds the page's requests to a URL back until `release()`, then lets them reach the real server: a slow network,
 * so a loading state can be seen or a person act before an answer. Nothing is answered in the server's place.
 */
export async function holdBack(page: Page, url: string | RegExp): Promise<() => void> {
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route(url, async (route) => {
    await held;
    await route.continue();
  });
  return () => release();
}

/** Whether the element has the keyboard focus right now. */
export const isFocused = (locator: Locator): Promise<boolean> =>
  locator.evaluate((el) => el === document.activeElement);

/** Photographs the page for a person to look at, as `name`.png (a name may have folders) under the screenshots folder. */
export async function screenshot(page: Page, name: string, { fullPage = true } = {}): Promise<void> {
  if (SCREENSHOTS === "off") return;
  const path = join(SCREENSHOTS, `${name}.png`);
  mkdirSync(dirname(path), { recursive: true });
  await page.screenshot({ path, fullPage });
}

/** Fills the sign-in form the way a person does: by label, then the Sign in button; resolves with the gateway's answer. */
export async function signIn(page: Page, email: string, password: string): Promise<Response> {
  await page.getByLabel("Username or email").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  const answer = page.waitForResponse((r) => r.url().endsWith("/api/account/login"));
  // Exact: the providers' buttons ("Sign in with Google", …) share the words.
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  return answer;
}

/** The sign-in page on its way to `path`, where a signed-in screen sends a visitor (`return_to`). */
export const signInFor = (path: string) => `/?return_to=${encodeURIComponent(path)}`;
export const TO_PROFILE = signInFor("/profile/edit");

/** Signs in on the sign-in page on its way to `path`, and waits for that page (its h1 `heading`). */
export async function signInTo(
  page: Page,
  email: string,
  password: string,
  path = "/profile/edit",
  heading = "Edit account",
): Promise<void> {
  await page.goto(signInFor(path));
  await signIn(page, email, password);
  await page.getByRole("heading", { name: heading, level: 1 }).waitFor();
}

/**
 * The opening of a signed-in browser test: a new visitor (`visit`) on `base`, signed in on their way to Edit account,
 * with the page's confirmations (Sign out everywhere else, Remove …) answered yes.
 */
export async function signedInVisitor(browser: Browser, email: string, password: string, base = baseUrl()) {
  const visitor = await visit(browser, TO_PROFILE, {}, base);
  visitor.page.on("dialog", (dialog) => void dialog.accept());
  await signIn(visitor.page, email, password);
  await visitor.page.getByRole("heading", { name: "Edit account", level: 1 }).waitFor();
  return visitor;
}

/** The password the registration tests sign up with (one of passwords.ts, which the log scan looks for). */
export const REGISTER_PASSWORD = TEST_PASSWORDS[0];

/** Registration step 1 (spec §2): address and password, then Continue to step 2. */
export async function registerStepOne(page: Page, email: string) {
  await page.getByRole("heading", { name: "Create account", level: 1 }).waitFor();
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(REGISTER_PASSWORD);
  // Exact: "Continue with Facebook" shares the word where the providers are set up.
  await page.getByRole("button", { name: "Continue", exact: true }).click();
  await page.getByRole("heading", { name: "Almost there", level: 1 }).waitFor();
}

/** Registration step 2 up to the human check: name, country and the newsletter. */
export async function registerStepTwo(page: Page) {
  await page.getByText("Complete your profile").waitFor();
  await page.getByLabel("First name").fill("Rosa");
  await page.getByLabel("Last name").fill("Park");
  await page.getByRole("combobox", { name: "Country" }).selectOption("PT");
  await page.getByLabel("Send me news about products, tips and offers.").check();
}

export interface MailFixture {
  browser: Browser;
  smtp: TestSmtp;
  service: Service;
}

/**
 * For a test file: Chromium, a real SMTP server on loopback, and a Gatehouse that mails through it (with more
 * environment if given, e.g. a BRANDS_FILE), started once before the file's tests and stopped after them.
 */
export function useMailService(env: () => Record<string, string> = () => ({})): MailFixture {
  const fixture = {} as MailFixture;
  beforeAll(async () => {
    fixture.browser = await launch();
    fixture.smtp = await startTestSmtp();
    fixture.service = await startService({ SMTP_URL: fixture.smtp.url, ...env() });
  });
  afterAll(async () => {
    await fixture.browser?.close();
    await fixture.service?.stop();
    await fixture.smtp?.stop();
  });
  return fixture;
}
