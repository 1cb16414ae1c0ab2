import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { linkIn } from "../packages/server/test/smtp.ts";
import {
  adminOn,
  createPerson,
  type MailFixture,
  signIn,
  stubExternalSites,
  uniqueEmail,
  useMailService,
  visit,
} from "./support.ts";

const fx = useMailService();
const PASSWORD = "Granite-Kettle-58";

/** The n-th mail to an address (1-based), once it has arrived. */
const nthMail = (fixture: MailFixture, address: string, n: number) => fixture.smtp.waitFor(address, { nth: n });

/** Every Referer the page sends from now on, with the request it went with. */
function recordReferers(page: Page): string[] {
  const sent: string[] = [];
  page.on("request", (request) => {
    void request.allHeaders().then((headers) => {
      if (headers.referer) sent.push(`${request.url()} <- ${headers.referer}`);
    });
  });
  return sent;
}

/**
 * Opens a mailed link the way a mail client does, waits for the screen it shows, and checks the class of leak the
 * issue names: no request of the page (assets, API calls, a link clicked, a reload) carries the code in a
 * Referer, and the address bar no longer holds it. A reload still shows a screen about that link.
 */
async function openWithoutLeaking(mailed: URL, settled: (page: Page) => Promise<unknown>) {
  // The admin command line mails links for its own PUBLIC_URL: the path and query are what the page sees.
  const link = new URL(mailed.pathname + mailed.search, fx.service.baseUrl);
  const code = link.searchParams.get("code") ?? "";
  expect(code).toMatch(/^[\w-]{43}$/u);
  const { page, context } = await visit(fx.browser, "about:blank", {}, fx.service.baseUrl);
  await stubExternalSites(context);
  const referers = recordReferers(page);
  await page.goto(link.href);
  await settled(page);
  expect(new URL(page.url()).searchParams.has("code")).toBe(false);
  expect(await page.evaluate(() => window.location.href)).not.toContain(code);
  await page.reload();
  await settled(page);
  expect(page.url()).not.toContain(code);
  // A link clicked on the page: the brand's legal page, off our origin.
  await page.getByRole("link", { name: "Privacy policy" }).last().click();
  await page.getByRole("heading", { name: "External site" }).waitFor();
  expect(referers.filter((r) => r.includes(code))).toEqual([]);
  // Stronger than the leak itself: these pages send no Referer at all (Referrer-Policy: no-referrer).
  expect(referers).toEqual([]);
  await context.close();
}

describe("pages opened from mailed links", () => {
  it("activation: the code leaves the address bar and no Referer carries it", async () => {
    const email = uniqueEmail("leak-activate");
    await createPerson(
      { email, password: PASSWORD, first: "Ada", last: "Ng", country: "DE", flags: ["--inactive"] },
      fx.service.databaseUrl,
    );
    const { page, context } = await visit(fx.browser, "/account/activate", {}, fx.service.baseUrl);
    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: "Resend activation link" }).click();
    await page.getByText(`If ${email} belongs to an account waiting for activation`).waitFor();
    await context.close();
    const link = linkIn(await nthMail(fx, email, 1), "/account/activate");
    await openWithoutLeaking(link, (p) =>
      p
        .getByRole("heading", {
          name: /Your account is active|Your account is already active|We could not activate your account/u,
        })
        .waitFor(),
    );
  });

  it("activation with sign-in: the code leaves the address bar and no Referer carries it", async () => {
    const email = uniqueEmail("leak-activate-login");
    await createPerson(
      { email, password: PASSWORD, first: "Ada", last: "Ng", country: "DE", flags: ["--inactive"] },
      fx.service.databaseUrl,
    );
    const { page, context } = await visit(
      fx.browser,
      `/account/activate/login?return_to=${encodeURIComponent("/profile/edit")}`,
      {},
      fx.service.baseUrl,
    );
    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: "Resend activation link" }).click();
    await page.getByText(`If ${email} belongs to an account waiting for activation`).waitFor();
    await context.close();
    const link = linkIn(await nthMail(fx, email, 1), "/account/activate/login");
    expect(link.searchParams.get("return_to")).toContain("/profile/edit");
    // It activates, signs in and continues to Edit account; a reload there is Edit account again.
    await openWithoutLeaking(link, (p) => p.getByRole("heading", { name: "Edit account" }).waitFor());
  });

  it("password reset: the code leaves the address bar, no Referer carries it, and a reload keeps the form", async () => {
    const email = uniqueEmail("leak-reset");
    await createPerson({ email, password: PASSWORD, first: "Ada", last: "Ng", country: "DE" }, fx.service.databaseUrl);
    const { page, context } = await visit(fx.browser, "/account/recover", {}, fx.service.baseUrl);
    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: "Recover" }).click();
    await page.getByRole("heading", { name: "Thank you" }).waitFor();
    await context.close();
    const link = linkIn(await nthMail(fx, email, 1), "/account/password-reset");
    await openWithoutLeaking(link, (p) => p.getByLabel("New password", { exact: true }).waitFor());
  });

  it("password set-up: the code leaves the address bar and no Referer carries it", async () => {
    const email = uniqueEmail("leak-setup");
    await adminOn(fx.service.databaseUrl, "user:invite", "--email", email);
    const link = linkIn(await nthMail(fx, email, 1), "/account/password-setup");
    await openWithoutLeaking(link, (p) => p.getByText("Tell us more about yourself").waitFor());
  });

  it("account deletion: the code leaves the address bar and no Referer carries it", async () => {
    const email = uniqueEmail("leak-delete");
    await createPerson({ email, password: PASSWORD, first: "Ada", last: "Ng", country: "DE" }, fx.service.databaseUrl);
    const { page, context } = await visit(fx.browser, "/profile/edit", {}, fx.service.baseUrl);
    await signIn(page, email, PASSWORD);
    await page.getByRole("heading", { name: "Edit account" }).waitFor();
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Delete my account" }).click();
    await page.getByText(`We have sent a link to ${email}`).waitFor();
    await context.close();
    const link = linkIn(await nthMail(fx, email, 1), "/account/delete");
    await openWithoutLeaking(link, (p) => p.getByRole("button", { name: "Delete all data" }).waitFor());
  });
});
