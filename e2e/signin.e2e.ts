import { LANGUAGE_CODES, loadCatalog } from "@gatehouse/contract";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { corporateOnlyFile } from "../packages/server/test/idps.ts";
import {
  admin,
  baseUrl,
  createPerson,
  expectAccessible,
  launch,
  screenshot,
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

const PASSWORD = "correct horse battery";

async function user(name: string, ...flags: string[]) {
  const email = uniqueEmail(name);
  await createPerson({ email, password: PASSWORD, first: "Ann", last: "Lee", country: "DE", flags });
  return email;
}

describe("sign-in", () => {
  it("signs in a user made by the admin CLI and shows Authentication complete (visualisation brand)", async () => {
    const email = await user("cli");
    const { page, context } = await visit(browser, "/?theme=archviz");
    await page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor();
    expect(await page.title()).toBe("Sign in | Enscape");
    await signIn(page, email, PASSWORD);
    await page.getByRole("heading", { name: "Authentication complete" }).waitFor();
    expect(await page.getByText(`You are signed in as Ann Lee (${email}).`).isVisible()).toBe(true);
    expect(new URL(page.url()).pathname).toBe("/login/success");
    await context.close();
  });

  it("continues to an allowed return address", async () => {
    const email = await user("return");
    const { page, context } = await visit(
      browser,
      `/?return_to=${encodeURIComponent("https://www.gatehouse.example/pricing?plan=pro")}`,
    );
    await stubExternalSites(context);
    await signIn(page, email, PASSWORD);
    await page.waitForURL("https://www.gatehouse.example/pricing?plan=pro");
    await context.close();
  });

  it.each([
    ["another host", "https://evil.example/phish"],
    ["a network-path reference", "//evil.example/phish"],
    ["userinfo", "https://www.gatehouse.example@evil.example/"],
    ["javascript:", "javascript:alert(document.cookie)"],
  ])("refuses a return address to %s and goes to the host's landing page", async (_name, returnTo) => {
    const email = await user("refused");
    const { page, context } = await visit(browser, `/?return_to=${encodeURIComponent(returnTo)}`);
    await stubExternalSites(context);
    await signIn(page, email, PASSWORD);
    // The development brands file's localhost lands on the account page (issue #24 §3).
    await page.waitForURL((url) => url.pathname === "/profile/edit");
    await context.close();
  });

  it("says Incorrect email or password. on the password field for a wrong password", async () => {
    const email = await user("wrong");
    const { page, context } = await visit(browser, "/");
    await signIn(page, email, "not the password");
    const password = page.getByLabel("Password", { exact: true });
    await page.getByText("Incorrect email or password.").waitFor();
    expect(await password.getAttribute("aria-invalid")).toBe("true");
    const describedBy = (await password.getAttribute("aria-describedby")) ?? "";
    expect(await page.locator(`[id="${describedBy.split(" ")[0]}"]`).textContent()).toBe(
      "Incorrect email or password.",
    );
    await context.close();
  });

  it("validates on blur, once something was typed, with the spec's messages", async () => {
    const { page, context } = await visit(browser, "/");
    await page.getByLabel("Username or email").fill("a");
    await page.getByLabel("Username or email").fill("");
    await page.getByLabel("Password", { exact: true }).focus();
    await page.getByText("Please enter your username or email address.").waitFor();
    await page.getByLabel("Password", { exact: true }).fill("12345");
    await page.getByLabel("Username or email").focus();
    await page.getByText("Your password must be at least 6 characters long.").waitFor();
    await context.close();
  });

  it("shows the resend-activation link to a pending account", async () => {
    const email = await user("pending", "--inactive");
    const { page, context } = await visit(browser, "/");
    await signIn(page, email, PASSWORD);
    await page.getByRole("alert").filter({ hasText: "not active" }).waitFor();
    expect(await page.getByRole("button", { name: "Resend activation link" }).isVisible()).toBe(true);
    await context.close();
  });

  it("blocks after five wrong passwords, and the admin's unlock lets the user in", async () => {
    const email = await user("lockout");
    const { page, context } = await visit(browser, "/");
    for (let i = 0; i < 5; i++) await signIn(page, email, `wrong password ${i}`);
    const alert = page.getByRole("alert").filter({ hasText: "temporarily unavailable" });
    await alert.waitFor();
    expect(await alert.getByRole("link", { name: "Forgot your password?" }).isVisible()).toBe(true);
    // "Forgot your password?" shows once on the page: the message's own words are the link, in every language.
    const language = page.getByRole("combobox").last();
    for (const code of LANGUAGE_CODES) {
      const catalog = await loadCatalog(code);
      await language.selectOption(code);
      await page.getByRole("link", { name: catalog.login.createAccount }).waitFor();
      const text = (await page.getByRole("main").textContent()) ?? "";
      expect(text.split(catalog.login.forgotPassword).length - 1, code).toBe(1);
      expect(await page.getByRole("alert").getByRole("link", { name: catalog.login.forgotPassword }).count()).toBe(1);
    }
    await language.selectOption("en");
    await alert.waitFor();
    expect((await signIn(page, email, PASSWORD)).status()).toBe(429);

    expect(await admin("user:unlock", "--email", email)).toContain("unlocked");
    // The stand-in for the brand's site must be in place before the sign-in that sends the browser there.
    await stubExternalSites(context);
    await signIn(page, email, PASSWORD);
    await page.waitForURL((url) => url.pathname === "/profile/edit");
    await context.close();
  });

  it("shows the password on request and hides it again", async () => {
    const { page, context } = await visit(browser, "/");
    const password = page.getByLabel("Password", { exact: true });
    await password.fill("secret-value");
    expect(await password.getAttribute("type")).toBe("password");
    await page.getByRole("button", { name: "Show password" }).click();
    expect(await password.getAttribute("type")).toBe("text");
    await page.getByRole("button", { name: "Hide password" }).click();
    expect(await password.getAttribute("type")).toBe("password");
    await context.close();
  });

  it("keeps the show/hide button clear of the typed password, in every language, on a phone", async () => {
    const { page, context } = await visit(browser, "/");
    await page.setViewportSize({ width: 390, height: 844 });
    const password = page.locator("input[autocomplete=current-password]");
    await password.fill("Granite-Kettle-58-and-a-long-tail");
    for (const code of LANGUAGE_CODES) {
      const catalog = await loadCatalog(code);
      await page.getByRole("combobox").last().selectOption(code);
      const toggle = page.getByRole("button", { name: catalog.field.showPassword, exact: true });
      await toggle.waitFor();
      const text = await password.evaluate((el) => {
        const box = el.getBoundingClientRect();
        const style = getComputedStyle(el);
        return { right: box.right - Number.parseFloat(style.paddingRight) - Number.parseFloat(style.borderRightWidth) };
      });
      const inputBox = await password.boundingBox();
      const button = await toggle.boundingBox();
      if (!inputBox || !button) throw new Error("no layout");
      // The text area ends where the button begins, and the button sits inside the field.
      expect(button.x, code).toBeGreaterThanOrEqual(text.right - 0.5);
      expect(button.x + button.width, code).toBeLessThanOrEqual(inputBox.x + inputBox.width + 0.5);
      expect(button.width, code).toBeGreaterThanOrEqual(24);
      await toggle.click();
      await page.getByRole("button", { name: catalog.field.hidePassword, exact: true }).click();
      if (code === "fr" || code === "de") await screenshot(page, `login-phone-${code}`);
    }
    await context.close();
  });

  it("gives every error screen a way forward: the error page, and the retry screen, which keeps the form", async () => {
    const { page, context } = await visit(browser, "/error?error_code=legacy_token_error&error_id=abc-123");
    await page.getByRole("heading", { name: "Sign-in failed" }).waitFor();
    await page.getByText("Ref: abc-123").waitFor();
    await page.getByRole("link", { name: "Back to sign in" }).click();
    await page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor();

    await page.goto("/account/recover");
    await page.getByLabel("Email").fill("kept@example.com");
    await context.setOffline(true);
    await page.getByRole("button", { name: "Recover" }).click();
    await page.getByRole("heading", { name: "Oops... what a mess." }).waitFor();
    await page.getByText("No Internet connection.", { exact: false }).waitFor();
    expect(await page.getByRole("link", { name: "Back to sign in" }).isVisible()).toBe(true);
    await expectAccessible(page);
    await context.setOffline(false);
    await page.getByRole("button", { name: "Try again" }).click();
    // Back on the form, as it was.
    expect(await page.getByLabel("Email").inputValue()).toBe("kept@example.com");
    await page.getByRole("button", { name: "Recover" }).click();
    await page.getByRole("heading", { name: "Thank you" }).waitFor();

    await page.goto("/account/recover");
    await context.setOffline(true);
    await page.getByLabel("Email").fill("out@example.com");
    await page.getByRole("button", { name: "Recover" }).click();
    await context.setOffline(false);
    await page.getByRole("link", { name: "Back to sign in" }).click();
    await page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor();
    await context.close();
  });

  it("works with the keyboard alone: Tab through the form, Enter signs in", async () => {
    const email = await user("keyboard");
    const { page, context } = await visit(browser, "/?theme=archviz");
    await page.getByLabel("Username or email").focus();
    await page.keyboard.type(email);
    await page.keyboard.press("Tab");
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Authentication complete" }).waitFor();
    await context.close();
  });

  it("sends a signed-in visitor on from the login page at once", async () => {
    const email = await user("again");
    const { page, context } = await visit(browser, "/?theme=archviz");
    await signIn(page, email, PASSWORD);
    await page.getByRole("heading", { name: "Authentication complete" }).waitFor();
    await stubExternalSites(context);
    await page.goto(`/?return_to=${encodeURIComponent("https://cloud.gatehouse.example/app")}`);
    await page.waitForURL("https://cloud.gatehouse.example/app");
    await context.close();
  });

  it("signs out at /logout and the session is gone", async () => {
    const email = await user("logout");
    const { page, context } = await visit(browser, "/?theme=archviz");
    await signIn(page, email, PASSWORD);
    await page.getByRole("heading", { name: "Authentication complete" }).waitFor();
    await page.goto("/logout");
    await page.getByText("You have been signed out.").waitFor();
    expect(await page.title()).toBe("Sign out | Gatehouse");
    const session = await page.request.get(`${baseUrl()}/api/session`);
    expect(session.status()).toBe(204);
    await context.close();
  });
});

describe("corporate hint", () => {
  it("offers Continue with corporate email for a single-sign-on-only domain, on sign-in and recovery", async () => {
    const { startService } = await import("./global.ts");
    // A company's provider for bigcorp.example (never contacted here: the hint asks only which domain signs in where).
    const service = await startService({ IDPS_FILE: corporateOnlyFile() });
    try {
      const { page, context } = await visit(browser, "/", {}, service.baseUrl);
      await page.getByLabel("Username or email").fill("ann@bigcorp.example");
      await page.getByLabel("Password", { exact: true }).focus();
      await page.getByText("Using a corporate account?").waitFor();
      expect(await page.getByRole("link", { name: "Continue with corporate email" }).getAttribute("href")).toBe(
        "/corporate_login",
      );
      await page.goto("/account/recover");
      await page.getByLabel("Email").fill("ann@example.com");
      await page.getByRole("button", { name: "Recover" }).focus();
      await page.waitForTimeout(300);
      expect(await page.getByText("Using a corporate account?").count()).toBe(0);
      await page.getByLabel("Email").fill("bob@bigcorp.example");
      await page.getByRole("button", { name: "Recover" }).focus();
      await page.getByText("Using a corporate account?").waitFor();
      await context.close();
    } finally {
      await service.stop();
    }
  });
});
