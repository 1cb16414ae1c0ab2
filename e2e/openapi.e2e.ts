import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { endpoints } from "@gatehouse/contract/endpoints";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Service, startService } from "./global.ts";
import { launch, screenshot, visit } from "./support.ts";

const AXE_SOURCE = readFileSync(resolve(import.meta.dirname, "../node_modules/axe-core/axe.min.js"), "utf8");

/**
 * axe's findings on Swagger UI that are left (docs/decisions.md "The API viewer"): all of moderate impact, all from
 * the viewer's own markup, which a stylesheet cannot change. The tag headings are h3 under the title's h2 with the
 * description's markdown in between ("heading-order"); the title and description sit outside Swagger UI's <main>
 * ("region"); each expanded operation's responses table is an unnamed region ("landmark-unique"). Every other
 * finding, and any of these at a higher impact, fails the test.
 */
const LEFT_IN_SWAGGER_UI = new Set(["heading-order", "region", "landmark-unique"]);

interface Finding {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/** axe (WCAG 2.1 A/AA and best practices) on the page as it is, through the debugging protocol, under its CSP. */
async function axeFindings(page: Page): Promise<Finding[]> {
  if (!(await page.evaluate("typeof window.axe === 'object'"))) await page.evaluate(AXE_SOURCE);
  return (await page.evaluate(`axe.run(document, {
    runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] },
  }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 3).map((n) => n.target.join(" ")) })))`)) as Finding[];
}

function unexpected(findings: Finding[]): string[] {
  return findings
    .filter((f) => !(LEFT_IN_SWAGGER_UI.has(f.id) && f.impact === "moderate"))
    .map((f) => `${f.id} (${f.impact}): ${f.help} — ${f.targets.join(", ")}`);
}

/** Console errors and CSP refusals of a page, reported from the start of its document. */
async function problemsOf(page: Page): Promise<string[]> {
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error" || /Content Security Policy|Refused to/iu.test(message.text()))
      problems.push(message.text());
  });
  page.on("pageerror", (error) => problems.push(error.message));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) =>
      console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI} ${event.sourceFile}`),
    );
  });
  return problems;
}

/** The paths of the operations the viewer shows. */
const shownPaths = (page: Page) =>
  page.locator(".opblock-summary-path").evaluateAll((els) => els.map((el) => el.getAttribute("data-path")));

/** Runs one operation with "Try it out" and answers the gateway's status. */
async function tryOut(page: Page, id: string): Promise<number> {
  const op = page.locator(`#${id}`);
  if ((await op.locator(".opblock-body").count()) === 0) await op.locator(".opblock-summary-control").click();
  const tryIt = op.getByRole("button", { name: "Try it out" });
  // The opened operation draws its body a moment after the click: wait until it shows "Try it out", or "Cancel"
  // when it is in that mode already, before deciding (checking at once raced the drawing under load).
  await tryIt
    .or(op.getByRole("button", { name: "Cancel" }))
    .first()
    .waitFor();
  if (await tryIt.isVisible()) await tryIt.click();
  const [answer] = await Promise.all([
    page.waitForResponse(
      (r) => new URL(r.url()).pathname.startsWith("/api/") && r.request().resourceType() === "fetch",
    ),
    op.getByRole("button", { name: "Execute" }).click(),
  ]);
  return answer.status();
}

/** Operations of every shape Swagger UI renders differently. */
const OPENED = [
  "operations-session-session",
  "operations-account-login",
  "operations-account-recoverStatus",
  "operations-session-sessionLinkStart",
  "operations-account-updateProfile",
  "operations-account-unlinkIdentity",
  "operations-legacy_token-legacyToken",
];

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(() => browser.close());

describe("the API viewer", () => {
  it("shows every contract endpoint under its CSP, without a console error, and axe finds nothing serious", async () => {
    const { page, context } = await visit(browser, "about:blank");
    const problems = await problemsOf(page);
    await page.goto("/api/docs");
    await page.getByText("/api/account/login", { exact: true }).first().waitFor();
    const shown = await shownPaths(page);
    for (const endpoint of Object.values(endpoints)) expect(shown).toContain(`/api${endpoint.path}`);
    expect(shown).toEqual(expect.arrayContaining(["/healthz", "/readyz"]));
    expect(unexpected(await axeFindings(page))).toEqual([]);

    // One operation of each shape opened (a body, path and query parameters, each method, an empty answer and a
    // redirect): their parameters, bodies, answers and schemas are what axe checks next.
    for (const id of OPENED) await page.locator(`#${id} .opblock-summary-control`).click();
    await page
      .locator(".opblock-body")
      .nth(OPENED.length - 1)
      .waitFor();
    expect(unexpected(await axeFindings(page))).toEqual([]);
    await screenshot(page, "api-docs");
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  it("'Try it out' calls the gateway with the session's CSRF token once GET /api/session handed it out", async () => {
    const { page, context } = await visit(browser, "about:blank");
    const problems = await problemsOf(page);
    await page.goto("/api/docs");
    await page.locator("#operations-account-loginModes").waitFor();
    // Without a session's token the gateway refuses the call, as it refuses any client.
    expect(await tryOut(page, "operations-account-loginModes")).toBe(403);
    expect(await tryOut(page, "operations-session-session")).toBe(204);
    expect(await tryOut(page, "operations-account-loginModes")).toBe(200);
    expect(problems.filter((p) => !p.includes("403"))).toEqual([]);
    await context.close();
  });
});

describe("the API viewer in production, on a brand host", () => {
  let service: Service;
  beforeAll(async () => {
    const brands = join(mkdtempSync(join(tmpdir(), "gatehouse-brands-")), "brands.json");
    const sites = [
      { host: "localhost", brand: "default" },
      { host: "cloud.localhost", brand: "cloud" },
    ];
    writeFileSync(brands, JSON.stringify({ defaultBrand: "default", returnHosts: [], sites }));
    service = await startService({
      NODE_ENV: "production",
      BRANDS_FILE: brands,
      SESSION_SECRET: "production-e2e-secret-that-is-long-enough",
      // Never reached: nothing here sends mail, but production refuses to start without a mail server.
      SMTP_URL: "smtp://127.0.0.1:9",
    });
  });
  afterAll(() => service?.stop());

  it("runs, names the brand host as its server and calls the gateway there", async () => {
    const base = service.baseUrl.replace("//localhost:", "//cloud.localhost:");
    const { page, context } = await visit(browser, "about:blank", {}, base);
    const problems = await problemsOf(page);
    await page.goto("/api/docs");
    await page.getByText("/api/account/login", { exact: true }).first().waitFor();
    // Fetched by the page itself: only Chromium resolves *.localhost to loopback.
    const document = await page.evaluate(() => fetch("/api/openapi.json").then((r) => r.json()));
    expect(document.servers).toEqual([{ url: base }]);
    expect(await tryOut(page, "operations-countries-countries")).toBe(200);
    expect(problems).toEqual([]);
    await context.close();
  });
});
