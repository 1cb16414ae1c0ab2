import { BRAND_IDS } from "@gatehouse/contract";
import type { BrowserContext, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { linkIn } from "../packages/server/test/smtp.ts";
import { createPerson, PHONE, screenshot, signIn, uniqueEmail, useMailService, visit } from "./support.ts";

/**
 * Issue #25 "States that are not errors must not look like errors", in Chromium: a used activation link of an active
 * account, a used deletion link of a deleted account, the forum's address without its request, an unknown error
 * code, a proxy's HTML answer, and validation that waits for the person. Each screen photographed on a phone in
 * every brand.
 */
const FORUM = "https://forum.gatehouse.example";
const fx = useMailService(() => ({ DISCOURSE_URL: FORUM, DISCOURSE_SECRET: "calm-states-forum-secret" }));
const PASSWORD = "Granite-Kettle-58";

const open = (path: string) => visit(fx.browser, path, {}, fx.service.baseUrl);

/** The same page in every brand on a phone, photographed once `ready` holds. */
async function inEveryBrand(
  path: string,
  name: string,
  ready: (page: Page) => Promise<unknown>,
  prepare: (context: BrowserContext) => Promise<unknown> = async () => {},
) {
  for (const theme of BRAND_IDS) {
    const joiner = path.includes("?") ? "&" : "?";
    const { page, context } = await open("about:blank");
    await prepare(context);
    await page.setViewportSize(PHONE);
    await page.goto(`${path}${joiner}theme=${theme}`);
    await ready(page);
    await screenshot(page, `${name}-${theme}`);
    await context.close();
  }
}

/** The path and query of the newest mailed link to `email` with `path`. */
async function mailedPath(email: string, path: string): Promise<string> {
  const link = linkIn(await fx.smtp.waitFor(email), path);
  return link.pathname + link.search;
}

describe("states that are not errors (issue #25)", () => {
  it("a used activation link of an active account says the account is active and offers Sign in", async () => {
    const email = uniqueEmail("calm-active");
    await createPerson(
      { email, password: PASSWORD, first: "Ida", last: "Moe", country: "NO", flags: ["--inactive"] },
      fx.service.databaseUrl,
    );
    const { page, context } = await open("/account/activate");
    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: "Resend activation link" }).click();
    await page.getByText(`If ${email} belongs to an account waiting for activation`).waitFor();
    const link = await mailedPath(email, "/account/activate");
    await page.goto(link);
    await page.getByRole("heading", { name: "Your account is active" }).waitFor();

    await page.goto(link);
    await page.getByRole("heading", { name: "Your account is already active" }).waitFor();
    expect(await page.getByRole("alert").count()).toBe(0);
    expect(await page.getByText("We could not activate your account").count()).toBe(0);
    expect(await page.getByRole("button", { name: "Resend activation link" }).count()).toBe(0);
    await page.getByRole("link", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor();

    // A code nobody was sent is still an invalid link, with the way to a new one.
    await page.goto(`/account/activate?code=${"k".repeat(43)}`);
    await page.getByRole("heading", { name: "We could not activate your account" }).waitFor();
    await page.getByText("This link is not valid. Please request a new one.").waitFor();
    await context.close();

    await inEveryBrand(link, "calm-activation-used", (p) =>
      p.getByRole("heading", { name: "Your account is already active" }).waitFor(),
    );
  });

  it("a used deletion link after the account is gone says the account was deleted, on load", async () => {
    const email = uniqueEmail("calm-deleted");
    await createPerson(
      { email, password: PASSWORD, first: "Noor", last: "Haddad", country: "NL" },
      fx.service.databaseUrl,
    );
    const { page, context } = await open("/?return_to=%2Fprofile%2Fedit");
    await signIn(page, email, PASSWORD);
    await page.getByRole("heading", { name: "Edit account" }).waitFor();
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Delete my account" }).click();
    await page.getByText(`We have sent a link to ${email}`).waitFor();
    const link = await mailedPath(email, "/account/delete");
    await page.goto(link);
    await page.getByRole("button", { name: "Delete all data" }).click();
    await page.getByText("All data was successfully deleted.").waitFor();

    await page.goto(link);
    await page.getByText("This account was deleted. The link has done its work and cannot be used again.").waitFor();
    expect(await page.getByRole("button", { name: "Delete all data" }).count()).toBe(0);
    expect(await page.getByText("Something went wrong.").count()).toBe(0);
    expect(await page.getByRole("link", { name: "Request a new link" }).count()).toBe(0);
    await context.close();

    await inEveryBrand(link, "calm-deletion-used", (p) =>
      p.getByText("This account was deleted.", { exact: false }).waitFor(),
    );
  });

  it("/discourse/login without parameters says the forum link is incomplete and offers the forum and sign-in", async () => {
    const { page, context } = await open("/discourse/login");
    await page.getByRole("heading", { name: "This forum link is incomplete", level: 1 }).waitFor();
    expect(await page.getByText("Some of the information you entered is not valid.").count()).toBe(0);
    expect(await page.getByRole("link", { name: "Go to the forum" }).getAttribute("href")).toBe(FORUM);
    await page.getByRole("link", { name: "Go to sign-in" }).click();
    await page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor();
    await context.close();

    await inEveryBrand("/discourse/login", "calm-forum-incomplete", (p) =>
      p.getByRole("heading", { name: "This forum link is incomplete" }).waitFor(),
    );
  });

  it("/error with an unknown code shows the general error text, never the raw code", async () => {
    const { page, context } = await open("/error?error_code=quota_exceeded_xyz");
    await page.getByRole("heading", { name: "Something went wrong", level: 1 }).waitFor();
    await page.getByText("We could not sign you in. If the problem persists, please contact support.").waitFor();
    expect(await page.locator("body").innerText()).not.toContain("quota_exceeded_xyz");
    await context.close();

    await inEveryBrand("/error?error_code=quota_exceeded_xyz", "calm-error-unknown", (p) =>
      p.getByRole("heading", { name: "Something went wrong" }).waitFor(),
    );
  });

  it("a proxy's HTML 500 shows the status and a reference, not the HTML", async () => {
    const html = "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>nginx</h1></body></html>";
    // What a proxy in front of the gateway answers when the gateway is away: not the gateway's error object.
    const proxy = (context: BrowserContext) =>
      context.route("**/api/account/login", (route) =>
        route.fulfill({ status: 500, contentType: "text/html", body: html }),
      );
    const shown = async (page: Page) => {
      await page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor();
      await signIn(page, "someone@example.com", PASSWORD);
      await page.getByRole("heading", { name: "Oops... what a mess." }).waitFor();
    };
    const { page, context } = await open("about:blank");
    await proxy(context);
    await page.goto("/");
    await shown(page);
    await page.getByText("An unexpected error occurred. The server answered with status 500.").waitFor();
    await page.getByText(/^Ref: [0-9a-f-]{36}$/u).waitFor();
    const text = await page.locator("body").innerText();
    expect(text).not.toContain("DOCTYPE");
    expect(text).not.toContain("nginx");
    await context.close();

    await inEveryBrand("/", "calm-html-answer", shown, proxy);
  });

  it("validation waits for the person: passing through an empty field shows no error, typing then leaving does", async () => {
    const { page, context } = await open("/");
    const email = page.getByLabel("Username or email");
    await email.focus();
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    expect(await page.getByText("Please enter your username or email address.").count()).toBe(0);
    expect(await email.getAttribute("aria-invalid")).toBeNull();
    // The submit shows what is missing.
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByText("Please enter your username or email address.").waitFor();
    await screenshot(page, "calm-validation-submit");

    // The registration form, the same shared rules: nothing on a pass, the error once something was typed.
    await page.goto("/register");
    const registerEmail = page.getByLabel("Email");
    await registerEmail.focus();
    await page.keyboard.press("Tab");
    expect(await page.getByText("Please enter your email address.").count()).toBe(0);
    expect(await registerEmail.getAttribute("aria-invalid")).toBeNull();
    await registerEmail.fill("ann@");
    await page.keyboard.press("Tab");
    await page.getByText("Please enter valid email address.").waitFor();
    await context.close();

    await inEveryBrand("/", "calm-validation-pass", async (p) => {
      await p.getByLabel("Username or email").focus();
      await p.keyboard.press("Tab");
      await p.getByLabel("Password", { exact: true }).evaluate((el) => el === document.activeElement);
      expect(await p.getByText("Please enter your username or email address.").count()).toBe(0);
    });
  });
});
