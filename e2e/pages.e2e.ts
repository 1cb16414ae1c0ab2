import { BRAND_IDS, BRANDS, loadCatalog } from "@gatehouse/contract";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  admin,
  createPerson,
  expectAccessible,
  launch,
  registerStepOne,
  registerStepTwo,
  screenshot,
  signIn,
  uniqueEmail,
  visit,
} from "./support.ts";

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(() => browser.close());

/** "rgb(r, g, b)" of a #rrggbb colour, as getComputedStyle reports it. */
const rgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)).join(", ")})`;

describe.each(BRAND_IDS)("the login page in the %s brand", (id) => {
  const brand = BRANDS[id];
  it("has the brand's title, logo, colours and legal links, and every control by name", async () => {
    const { page, context } = await visit(browser, `/?theme=${id}`);
    await page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor();
    expect(await page.title()).toBe(`Sign in | ${brand.name}`);
    expect(await page.getByRole("img", { name: brand.name }).getAttribute("src")).toBe(brand.logo);
    const button = page.getByRole("button", { name: "Sign in", exact: true });
    expect(await button.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe(rgb(brand.colors.primary));
    // The browser draws its own controls (select lists, scroll bars) light or dark to match the brand.
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).colorScheme)).toBe(brand.colorScheme);
    expect(await page.getByRole("link", { name: "Privacy policy" }).getAttribute("href")).toBe(brand.links.privacy);
    expect(await page.getByRole("link", { name: "Terms of use" }).getAttribute("href")).toBe(brand.links.terms);
    expect(await page.getByRole("link", { name: "Licence agreement" }).getAttribute("href")).toBe(brand.links.eula.en);
    for (const name of ["Forgot your password?", "Create account"])
      expect(await page.getByRole("link", { name }).isVisible()).toBe(true);
    expect(await page.getByLabel("Username or email").isVisible()).toBe(true);
    expect(await page.getByLabel("Password", { exact: true }).isVisible()).toBe(true);
    expect(await page.getByRole("combobox", { name: "Language" }).isVisible()).toBe(true);
    // The promo cover belongs to the cloud-rendering brand only.
    expect(await page.getByText("Start with 20 free credits").count()).toBe(brand.traits.promoCover ? 1 : 0);
    // The passkey button stands apart from Sign in above it (they touched).
    const [submit, passkey] = await Promise.all(
      ["Sign in", "Sign in with a passkey"].map((name) =>
        page.getByRole("button", { name, exact: true }).boundingBox(),
      ),
    );
    expect((passkey?.y ?? 0) - ((submit?.y ?? 0) + (submit?.height ?? 0))).toBeGreaterThanOrEqual(8);
    await expectAccessible(page);
    await screenshot(page, `login-${id}`);
    await context.close();
  });
});

describe("headings by return address (spec §2)", () => {
  it.each([
    ["https://www.gatehouse.example/try/corona", "Sign in to get your trial"],
    ["https://www.gatehouse.example/store/cart", "Sign in to complete your purchase"],
    ["https://www.gatehouse.example/demo", "Sign in to activate the Corona trial on your account"],
  ])("%s → %s", async (returnTo, heading) => {
    const { page, context } = await visit(browser, `/?return_to=${encodeURIComponent(returnTo)}`);
    await page.getByRole("heading", { name: heading, level: 1 }).waitFor();
    await context.close();
  });
});

describe("language", () => {
  it("shows a visitor from Spain the page in Spanish", async () => {
    const es = await loadCatalog("es");
    const { page, context } = await visit(browser, "/", { "cf-ipcountry": "ES" });
    await page.getByRole("heading", { name: es.login.heading.default, level: 1 }).waitFor();
    expect(await page.locator("html").getAttribute("lang")).toBe("es");
    expect(await page.title()).toBe(`${es.titles.signIn} | Gatehouse`);
    expect(await page.getByLabel(es.login.email).isVisible()).toBe(true);
    expect(await page.getByLabel(es.login.password, { exact: true }).isVisible()).toBe(true);
    await page.getByRole("button", { name: es.login.submit, exact: true }).click();
    await page.getByText(es.validation.loginEmail.required).waitFor();
    await expectAccessible(page);
    await screenshot(page, "login-es");
    await context.close();
  });

  it("switches language from the footer and remembers it", async () => {
    const de = await loadCatalog("de");
    const { page, context } = await visit(browser, "/");
    await page.getByRole("combobox", { name: "Language" }).selectOption("de");
    await page.getByRole("heading", { name: de.login.heading.default, level: 1 }).waitFor();
    await page.reload();
    await page.getByRole("heading", { name: de.login.heading.default, level: 1 }).waitFor();
    expect(await page.locator("html").getAttribute("lang")).toBe("de");
    await context.close();
  });

  it("takes the language from the return address's path", async () => {
    const { page, context } = await visit(
      browser,
      `/?return_to=${encodeURIComponent("https://www.gatehouse.example/ja/pricing")}`,
    );
    expect(await page.locator("html").getAttribute("lang")).toBe("ja");
    await context.close();
  });
});

describe("the accessibility check", () => {
  it("fails a page with a button nobody can name, and says which", async () => {
    const { page, context } = await visit(browser, "/");
    await page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor();
    await page.evaluate(() => {
      const button = document.createElement("button");
      button.id = "nameless";
      document.querySelector("main")?.append(button);
    });
    await expect(expectAccessible(page)).rejects.toThrow(/button-name \(critical\).*#nameless/u);
    await context.close();
  });
});

describe("system pages", () => {
  it("shows 404 PAGE NOT FOUND for an unknown route", async () => {
    const { page, context } = await visit(browser, "/no/such/page");
    await page.getByRole("heading", { name: "404 PAGE NOT FOUND" }).waitFor();
    await expectAccessible(page);
    await screenshot(page, "not-found");
    await context.close();
  });

  it("shows a known error code's title and the reference on /error", async () => {
    const { page, context } = await visit(browser, "/error?error_code=user_disabled&error_id=abc-123");
    await page.getByRole("heading", { name: "Account disabled" }).waitFor();
    await page.getByText("Your user has been disabled in our system.").waitFor();
    await page.getByText("Ref: abc-123").waitFor();
    await context.close();
  });

  it("shows the description of an error without a known code", async () => {
    const { page, context } = await visit(browser, "/error?error_description=Something%20specific");
    await page.getByText("Something specific").waitFor();
    await context.close();
  });

  it("does not fetch the session on /error", async () => {
    const { page, context } = await visit(browser, "about:blank");
    const calls: string[] = [];
    page.on("request", (r) => {
      if (r.url().includes("/api/session")) calls.push(r.url());
    });
    await page.goto("/error?error_code=session_expired");
    await page.getByRole("heading", { name: "Session expired" }).waitFor();
    expect(calls).toEqual([]);
    await context.close();
  });

  it.each(["/", "/register", "/account/recover", "/logout"])(
    "logs no error in the browser console for a visitor on %s (the session check is expected, not a failure)",
    async (path) => {
      const { page, context } = await visit(browser, "about:blank");
      const errors: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error") errors.push(message.text());
      });
      page.on("pageerror", (error) => errors.push(error.message));
      const session = page.waitForResponse((r) => r.url().endsWith("/api/session"));
      await page.goto(path);
      expect((await session).status()).toBe(204);
      await page.getByRole("heading", { level: 1 }).waitFor();
      expect(errors).toEqual([]);
      await context.close();
    },
  );

  it("shows Oops... what a mess. with a retry when the gateway fails", async () => {
    const { page, context } = await visit(browser, "about:blank");
    let fail = true;
    await page.route("**/api/session", (route) =>
      fail ? route.fulfill({ status: 503, contentType: "text/html", body: "<h1>Bad gateway</h1>" }) : route.continue(),
    );
    // The passkey autofill waits for the session's answer: without it (and its CSRF token) the options call was
    // refused 403, and a refusal reloads the page, which took the retry screen away (a flaky run in CI).
    const passkeyCalls: string[] = [];
    page.on("request", (request) => {
      if (request.url().endsWith("/api/sign-in/passkey/options")) passkeyCalls.push(request.url());
    });
    await page.goto("/");
    await page.getByRole("heading", { name: "Oops... what a mess." }).waitFor();
    await page.getByText("An unexpected error occurred.").waitFor();
    expect(passkeyCalls).toEqual([]);
    fail = false;
    await page.getByRole("button", { name: "Try again" }).click();
    await page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor();
    await context.close();
  });
});

/**
 * The link in the newest mail to an address, as a path in the given brand's theme. This run has no SMTP server,
 * so mail waits in the dev mailbox, and the admin CLI (`mail:list`) reads it.
 */
async function mailedLink(email: string, theme: string): Promise<string> {
  const link = new URL(/https?:\/\/\S+/u.exec(await admin("mail:list", "--email", email))?.[0] ?? "");
  link.searchParams.set("theme", theme);
  return link.pathname + link.search;
}

describe.each(BRAND_IDS)("registration screens in the %s brand", (id) => {
  const brand = BRANDS[id];
  it("shows both steps with every control by name, and the page title", async () => {
    const { page, context } = await visit(browser, `/register?theme=${id}`);
    await page.getByRole("heading", { name: "Create account", level: 1 }).waitFor();
    expect(await page.title()).toBe(`Sign up | ${brand.name}`);
    expect(await page.getByLabel("Email").isVisible()).toBe(true);
    expect(await page.getByLabel("Password", { exact: true }).isVisible()).toBe(true);
    expect(await page.getByText("Your password should contain:").isVisible()).toBe(true);
    expect(await page.getByRole("button", { name: "Continue" }).isVisible()).toBe(true);
    expect(await page.getByRole("link", { name: "Sign in" }).isVisible()).toBe(true);
    await expectAccessible(page);
    await screenshot(page, `register-${id}`);

    await registerStepOne(page, uniqueEmail(`step2-${id}`));
    await registerStepTwo(page);
    // The proof of work solves itself; the step is checked with its widget in the brand's colours.
    await page.getByText("Verified").waitFor({ timeout: 30_000 });
    expect(await page.getByRole("button", { name: "Create account" }).isVisible()).toBe(true);
    expect(await page.getByRole("button", { name: "Back" }).isVisible()).toBe(true);
    const widget = page.locator("altcha-widget .altcha-main");
    expect(await widget.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe(rgb(brand.colors.surface));
    await expectAccessible(page);
    await screenshot(page, `register-step2-${id}`);
    await context.close();
  });

  it("shows register/complete with the address and the resend button", async () => {
    const { page, context } = await visit(browser, "about:blank");
    await page.addInitScript(() => sessionStorage.setItem("gatehouse.registeredEmail", "rosa@example.com"));
    await page.goto(`/register/complete?theme=${id}`);
    await page.getByRole("heading", { name: "Check your email" }).waitFor();
    expect(await page.title()).toBe(`Sign up complete | ${brand.name}`);
    await page.getByText("open the link we sent to rosa@example.com").waitFor();
    expect(await page.getByRole("button", { name: "Resend activation email" }).isVisible()).toBe(true);
    await expectAccessible(page);
    await screenshot(page, `register-complete-${id}`);
    await context.close();
  });

  it("resends the activation mail from register/complete, and the link shows the activation success", async () => {
    const email = uniqueEmail(`activate-${id}`);
    await createPerson({
      email,
      password: "Granite-Kettle-58",
      first: "Ana",
      last: "Ruiz",
      country: "ES",
      flags: ["--inactive"],
    });
    const { page, context } = await visit(browser, "about:blank");
    await page.addInitScript((address) => sessionStorage.setItem("gatehouse.registeredEmail", address), email);
    await page.goto(`/register/complete?theme=${id}`);
    await page.getByRole("button", { name: "Resend activation email" }).click();
    await page.getByText(`A new activation link has been sent to ${email}.`).waitFor();
    await page.goto(await mailedLink(email, id));
    const heading = brand.traits.richWelcome ? `Welcome to ${brand.name}!` : "Your account is active";
    await page.getByRole("heading", { name: heading }).waitFor();
    expect(await page.getByRole("link", { name: "Sign in" }).isVisible()).toBe(true);
    await expectAccessible(page);
    await screenshot(page, `activate-success-${id}`);
    await context.close();
  });

  it("shows the activation result page", async () => {
    const { page, context } = await visit(browser, `/account/activate?theme=${id}`);
    await page.getByText("Invalid activation link.").waitFor();
    expect(await page.title()).toBe(`Activate account | ${brand.name}`);
    await expectAccessible(page);
    await screenshot(page, `activate-error-${id}`);
    await context.close();
  });
});

describe("registration headings by return address (spec §2)", () => {
  it.each([
    ["https://www.gatehouse.example/try/corona", "Create account to get your trial", "Work email"],
    ["https://store.gatehouse.example/cart", "Create account to complete your purchase", "Email"],
    ["https://www.gatehouse.example/buy?doCheckout=1", "Create account to complete your purchase", "Email"],
  ])("%s → %s", async (returnTo, heading, emailLabel) => {
    const { page, context } = await visit(browser, `/register?return_to=${encodeURIComponent(returnTo)}`);
    await page.getByRole("heading", { name: heading, level: 1 }).waitFor();
    expect(await page.getByLabel(emailLabel, { exact: true }).isVisible()).toBe(true);
    await context.close();
  });

  it("locks a preset address", async () => {
    const { page, context } = await visit(browser, "/register?email=preset%40example.com");
    const email = page.getByLabel("Email");
    await email.waitFor();
    expect(await email.inputValue()).toBe("preset@example.com");
    expect(await email.getAttribute("readonly")).not.toBeNull();
    await context.close();
  });
});

describe.each(BRAND_IDS)("password screens in the %s brand", (id) => {
  const brand = BRANDS[id];
  it("shows Forgot password", async () => {
    const { page, context } = await visit(browser, `/account/recover?theme=${id}`);
    await page.getByRole("heading", { name: "Forgot your password?" }).waitFor();
    expect(await page.title()).toBe(`Recover password | ${brand.name}`);
    expect(await page.getByLabel("Email").isVisible()).toBe(true);
    expect(await page.getByRole("button", { name: "Recover" }).isVisible()).toBe(true);
    await expectAccessible(page);
    await screenshot(page, `recover-${id}`);
    await context.close();
  });

  it("shows a reset link that cannot be used, and a set-up link that cannot be used", async () => {
    const { page, context } = await visit(browser, `/account/password-reset?theme=${id}&code=${"y".repeat(43)}`);
    await page.getByRole("heading", { name: "This link cannot be used" }).waitFor();
    expect(await page.title()).toBe(`Reset password | ${brand.name}`);
    await expectAccessible(page);
    await screenshot(page, `reset-invalid-${id}`);
    await page.goto(`/account/password-setup?theme=${id}`);
    await page.getByRole("heading", { name: "This link cannot be used" }).waitFor();
    expect(await page.title()).toBe(`Setup password | ${brand.name}`);
    await context.close();
  });

  it("shows Reset password and Set up password opened from their mailed links", async () => {
    const email = uniqueEmail(`reset-${id}`);
    await createPerson({ email, password: "Granite-Kettle-58", first: "A", last: "B", country: "DE" });
    const { page, context } = await visit(browser, `/account/recover?theme=${id}`);
    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: "Recover" }).click();
    await page.getByRole("heading", { name: "Thank you" }).waitFor();
    await page.goto(await mailedLink(email, id));
    await page.getByRole("heading", { name: "Choose a new password" }).waitFor();
    expect(await page.title()).toBe(`Reset password | ${brand.name}`);
    expect(await page.getByLabel("New password", { exact: true }).isVisible()).toBe(true);
    const update = brand.traits.resetButtonRecover ? "Recover" : "Update";
    expect(await page.getByRole("button", { name: update }).isVisible()).toBe(true);
    await expectAccessible(page);
    await screenshot(page, `reset-${id}`);

    const invitee = uniqueEmail(`setup-${id}`);
    expect(await admin("user:invite", "--email", invitee, "--brand", id)).toContain("invited");
    await page.goto(await mailedLink(invitee, id));
    await page.getByRole("heading", { name: "Set up your password" }).waitFor();
    expect(await page.title()).toBe(`Setup password | ${brand.name}`);
    for (const name of [
      "How did you hear about us?",
      "Which platform are you most interested in?",
      "What is your role?",
    ])
      expect(await page.getByRole("combobox", { name }).isVisible()).toBe(true);
    expect(await page.getByLabel("Phone number (optional)").isVisible()).toBe(true);
    expect(await page.getByRole("button", { name: "SET PASSWORD" }).isVisible()).toBe(true);
    await expectAccessible(page);
    await screenshot(page, `setup-${id}`);
    await context.close();
  });

  it("shows Change password to a signed-in user", async () => {
    const email = uniqueEmail(`change-${id}`);
    await createPerson({ email, password: "Granite-Kettle-58", first: "A", last: "B", country: "DE" });
    const { page, context } = await visit(
      browser,
      `/?theme=${id}&return_to=${encodeURIComponent("/account/password-change")}`,
    );
    await signIn(page, email, "Granite-Kettle-58");
    await page.getByRole("heading", { name: "Change password" }).waitFor();
    expect(await page.title()).toBe(`Change password | ${brand.name}`);
    expect(await page.getByLabel("Current password", { exact: true }).isVisible()).toBe(true);
    expect(await page.getByLabel("New password", { exact: true }).isVisible()).toBe(true);
    await expectAccessible(page);
    await screenshot(page, `change-${id}`);
    await context.close();
  });
});
