import type { Browser, ConsoleMessage, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createPerson,
  launch,
  registerStepOne,
  registerStepTwo,
  signIn,
  stubExternalSites,
  uniqueEmail,
  visit,
} from "./support.ts";

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(() => browser.close());

const PASSWORD = "Granite-Kettle-58";

async function user(name: string): Promise<string> {
  const email = uniqueEmail(name);
  await createPerson({ email, password: PASSWORD, first: "Ada", last: "Byron", country: "GB" });
  return email;
}

/** Paths whose normalised form starts with "//": a router handed them would read another host (ASVS 5.1.5). */
const NETWORK_PATHS = [
  "/..//evil.example/phish",
  "/a/../..//evil.example/",
  "/%2e%2e//evil.example/",
  "/%2e%2e%2f/evil.example/",
];

describe("return addresses that normalise to another host", () => {
  it.each(NETWORK_PATHS)("signing in with return_to=%s continues to the host's landing page", async (returnTo) => {
    const email = await user("netpath");
    const { page, context } = await visit(browser, `/?return_to=${encodeURIComponent(returnTo)}`);
    await stubExternalSites(context);
    await signIn(page, email, PASSWORD);
    // The development brands file's localhost lands on the account page (issue #24 §3), never on the other host.
    await page.waitForURL((url) => url.pathname === "/profile/edit");
    await context.close();
  });

  it.each(NETWORK_PATHS)("a signed-in visitor with return_to=%s goes to edit account", async (returnTo) => {
    const email = await user("netpath-in");
    const { page, context } = await visit(browser, "/profile/edit");
    await signIn(page, email, PASSWORD);
    await page.getByRole("heading", { name: "Edit account", level: 1 }).waitFor();
    await page.goto(`/?return_to=${encodeURIComponent(returnTo)}`);
    await page.waitForURL((url) => url.pathname === "/profile/edit");
    await page.getByRole("heading", { name: "Edit account", level: 1 }).waitFor();
    expect(await page.getByText("Loading...").count()).toBe(0);
    await context.close();
  });
});

/** Console reports of the page's own policies refusing something (CSP or Permissions-Policy). */
function policyReports(page: Page): string[] {
  const reports: string[] = [];
  page.on("console", (message: ConsoleMessage) => {
    const text = message.text();
    if (/Content Security Policy|Permissions[- ]Policy|Refused to/iu.test(text)) reports.push(text);
  });
  return reports;
}

describe("the pages' own policies", () => {
  it("let registration and the proof-of-work widget run without a single refusal", async () => {
    const { page, context } = await visit(browser, "/");
    const reports = policyReports(page);
    const headers = (await page.goto("/register?theme=assets"))?.headers() ?? {};
    expect(headers["permissions-policy"]).toContain("camera=()");
    expect(headers["content-security-policy"]).toMatch(/style-src 'self' 'unsafe-inline'(;|$)/u);
    await registerStepOne(page, uniqueEmail("policies"));
    await registerStepTwo(page);
    await page.getByText("Verified").waitFor({ timeout: 30_000 });
    expect(reports).toEqual([]);
    await context.close();
  });
});
