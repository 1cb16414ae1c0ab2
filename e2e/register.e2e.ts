import { BRANDS } from "@gatehouse/contract";
import { describe, expect, it } from "vitest";
import { linkIn } from "../packages/server/test/smtp.ts";
import {
  createPerson,
  expectAccessible,
  holdBack,
  isFocused,
  REGISTER_PASSWORD,
  registerStepOne,
  registerStepTwo,
  screenshot,
  signIn,
  uniqueEmail,
  useMailService,
  visit,
} from "./support.ts";

const fx = useMailService();

describe("registration", () => {
  it("registers in two steps, mails the activation link, and the activated account signs in", async () => {
    const email = uniqueEmail("reg");
    const { page, context } = await visit(fx.browser, "/register?theme=cloud", {}, fx.service.baseUrl);
    await page.getByRole("heading", { name: "Create account", level: 1 }).waitFor();
    expect(await page.title()).toBe("Sign up | Cloud Render");
    await registerStepOne(page, email);
    await registerStepTwo(page);
    // The proof-of-work check solves itself in the browser.
    await page.getByText("Verified").waitFor({ timeout: 30_000 });
    await expectAccessible(page);
    await screenshot(page, "register-step2-cloud");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByRole("heading", { name: "Check your email" }).waitFor();
    await page.getByText(`open the link we sent to ${email}`).waitFor();

    const mail = await fx.smtp.waitFor(email);
    expect(mail.text).toContain("Cloud Render");
    const link = linkIn(mail, "/account/activate");
    await page.goto(link.href);
    await page.getByRole("heading", { name: "Your account is active" }).waitFor();
    await page.getByRole("link", { name: "Sign in" }).click();
    await page.goto("/?theme=archviz");
    expect((await signIn(page, email, REGISTER_PASSWORD)).status()).toBe(200);
    await page.getByRole("heading", { name: "Authentication complete" }).waitFor();
    await context.close();
  });

  it("registers with the keyboard alone, each step starting at its heading", async () => {
    const { page, context } = await visit(fx.browser, "/register?theme=engine", {}, fx.service.baseUrl);
    await page.getByLabel("Email").focus();
    await page.keyboard.type(uniqueEmail("keys"));
    await page.keyboard.press("Tab");
    expect(await isFocused(page.getByLabel("Password", { exact: true }))).toBe(true);
    await page.keyboard.type(REGISTER_PASSWORD);
    await page.keyboard.press("Enter");
    const heading = page.getByRole("heading", { name: "Almost there", level: 1 });
    await heading.waitFor();
    await expect.poll(() => isFocused(heading)).toBe(true);
    await page.keyboard.press("Tab");
    expect(await isFocused(page.getByLabel("First name"))).toBe(true);
    await page.keyboard.type("Kim");
    await page.keyboard.press("Tab");
    await page.keyboard.type("Seo");
    await page.keyboard.press("Tab");
    const country = page.getByRole("combobox", { name: "Country" });
    expect(await isFocused(country)).toBe(true);
    await page.keyboard.type("Portugal");
    expect(await country.inputValue()).toBe("PT");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Space");
    expect(await page.getByLabel("Send me news about products, tips and offers.").isChecked()).toBe(true);
    await page.getByText("Verified").waitFor({ timeout: 30_000 });
    const create = page.getByRole("button", { name: "Create account" });
    for (let i = 0; i < 5 && !(await isFocused(create)); i++) await page.keyboard.press("Tab");
    expect(await isFocused(create)).toBe(true);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Check your email" }).waitFor();
    await context.close();
  });

  it("moves on with Enter typed while the address is still being checked, once the check answers", async () => {
    const { page, context } = await visit(fx.browser, "/register", {}, fx.service.baseUrl);
    // The address's check (on leaving the field) answers only after the password is typed and Enter pressed:
    // a slow server. A disabled Continue would swallow that Enter (implicit submission needs its default button).
    const release = await holdBack(page, "**/api/account/register/validate");
    const checked = page.waitForRequest((r) => r.url().endsWith("/api/account/register/validate"));
    await page.getByLabel("Email").fill(uniqueEmail("early"));
    await page.keyboard.press("Tab");
    await checked;
    await page.keyboard.type(REGISTER_PASSWORD);
    await page.keyboard.press("Enter");
    release();
    await page.getByRole("heading", { name: "Almost there", level: 1 }).waitFor();
    await context.close();
  });

  it("shows the conflict message on blur for an address that is taken", async () => {
    const email = uniqueEmail("taken");
    const first = await visit(fx.browser, "/register", {}, fx.service.baseUrl);
    await registerStepOne(first.page, email);
    await registerStepTwo(first.page);
    await first.page.getByText("Verified").waitFor({ timeout: 30_000 });
    await first.page.getByRole("button", { name: "Create account" }).click();
    await first.page.getByRole("heading", { name: "Check your email" }).waitFor();
    await first.context.close();

    const { page, context } = await visit(fx.browser, "/register", {}, fx.service.baseUrl);
    await page.getByLabel("Email").fill(email.toUpperCase());
    await page.getByLabel("Password", { exact: true }).focus();
    await page.getByText("This email address is already connected to an account.").waitFor();
    expect(await page.getByRole("link", { name: "Sign in with this address" }).isVisible()).toBe(true);
    await context.close();
  });

  it("lets a visitor located in CN solve the image captcha", async () => {
    const email = uniqueEmail("cn");
    const { page, context } = await visit(fx.browser, "/register", { "cf-ipcountry": "CN" }, fx.service.baseUrl);
    // The page follows the country: a visitor from CN reads Chinese; switch to English to use the spec's words.
    await page.getByRole("combobox").last().selectOption("en");
    const captcha = page.waitForResponse((r) => r.url().includes("/api/captcha/generate"));
    await registerStepOne(page, email);
    await registerStepTwo(page);
    const { id } = (await (await captcha).json()) as { id: string };
    expect(await page.getByRole("img", { name: "Image with numbers to type" }).isVisible()).toBe(true);
    await page.getByLabel("Enter the numbers shown in the image").fill("99999x");
    const fresh = page.waitForResponse((r) => r.url().includes("/api/captcha/generate"));
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByText("Incorrect answer to captcha").waitFor();

    // On failure the captcha resets: a new image, answered right this time.
    const next = (await (await fresh).json()) as { id: string };
    expect(next.id).not.toBe(id);
    const { answer } = (await (await fetch(`${fx.service.baseUrl}/api/test/captcha/${next.id}`)).json()) as {
      answer: string;
    };
    await page.getByLabel("Enter the numbers shown in the image").fill(answer);
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByRole("heading", { name: "Check your email" }).waitFor();
    await fx.smtp.waitFor(email);
    await context.close();
  });

  it("opened without a registration, register/complete sends the visitor to sign-in", async () => {
    const { page, context } = await visit(fx.browser, "/register/complete", {}, fx.service.baseUrl);
    await page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor();
    await context.close();
  });

  it("keeps each field's own value across every step change: Back link, browser Back and Forward", async () => {
    const email = uniqueEmail("steps");
    const { page, context } = await visit(fx.browser, "/register", {}, fx.service.baseUrl);
    await page.getByText("Step 1 of 2").waitFor();
    await registerStepOne(page, email);
    await page.getByText("Step 2 of 2").waitFor();
    await page.getByLabel("First name").fill("Rosa");
    await page.getByLabel("Last name").fill("Park");
    await page.getByRole("combobox", { name: "Country" }).selectOption("PT");
    const stepOneKept = async () => {
      await page.getByRole("heading", { name: "Create account", level: 1 }).waitFor();
      await page.getByText("Step 1 of 2").waitFor();
      expect(await page.getByLabel("Email").inputValue()).toBe(email);
      expect(await page.getByLabel("Password", { exact: true }).inputValue()).toBe(REGISTER_PASSWORD);
    };
    const stepTwoKept = async () => {
      await page.getByRole("heading", { name: "Almost there", level: 1 }).waitFor();
      expect(await page.getByLabel("First name").inputValue()).toBe("Rosa");
      expect(await page.getByLabel("Last name").inputValue()).toBe("Park");
      expect(await page.getByRole("combobox", { name: "Country" }).inputValue()).toBe("PT");
    };

    await page.getByRole("button", { name: "Back" }).click();
    await stepOneKept();
    await page.getByRole("button", { name: "Continue" }).click();
    await stepTwoKept();
    // The steps are in the browser's history too.
    await page.goBack();
    await stepOneKept();
    await page.goForward();
    await stepTwoKept();
    await page.goBack();
    await stepOneKept();
    await page.getByRole("button", { name: "Continue" }).click();
    await stepTwoKept();

    await page.getByText("Verified").waitFor({ timeout: 30_000 });
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByText(`open the link we sent to ${email}`).waitFor();
    // The account has the address that was typed: its activation mail went there.
    expect((await fx.smtp.waitFor(email)).text).toContain("/account/activate");
    await context.close();
  });

  it("lists registration's own password rules (8–64 characters), and the server's refusal shows before step 2", async () => {
    const { page, context } = await visit(fx.browser, "/register", {}, fx.service.baseUrl);
    await page.getByLabel("Email").fill(uniqueEmail("rules"));
    const password = page.getByLabel("Password", { exact: true });
    const rule = page.getByRole("listitem").filter({ hasText: "8 to 64 characters" });
    expect(await rule.getAttribute("data-met")).toBe("false");
    expect(await rule.textContent()).toContain("(not met)");
    // The new-password checklist (12 characters, cases, a number, a symbol) is not registration's rule.
    expect(await page.getByText("At least 12 characters").count()).toBe(0);
    expect(await page.getByText("One symbol").count()).toBe(0);
    await password.fill("abcdefgh");
    expect(await rule.getAttribute("data-met")).toBe("true");
    expect(await rule.textContent()).toContain("(met)");
    expect(await rule.locator("svg").count()).toBe(1);
    await page.getByText("Not a common password, and not based on your name, email address or Gatehouse.").waitFor();
    // A common password: the server says so on the field, and step 1 stays.
    await password.fill("football");
    await page.getByRole("button", { name: "Continue" }).click();
    await page
      .getByText(
        "This password is too common, even with changes such as capitals, digits, symbols or look-alike characters. Please choose another one.",
      )
      .waitFor();
    expect(await page.getByRole("heading", { name: "Create account", level: 1 }).isVisible()).toBe(true);
    await context.close();
  });

  it("links the terms and the privacy policy once each in the privacy notice", async () => {
    const { page, context } = await visit(fx.browser, "/register?theme=engine", {}, fx.service.baseUrl);
    const notice = page.getByText("By creating an account, you agree to the");
    await notice.waitFor();
    expect(await notice.textContent()).toBe(
      "By creating an account, you agree to the terms of use of Corona and acknowledge its privacy policy.",
    );
    const links = notice.getByRole("link");
    expect(await links.count()).toBe(2);
    expect(await notice.getByRole("link", { name: "terms of use" }).getAttribute("href")).toBe(
      BRANDS.engine.links.terms,
    );
    expect(await notice.getByRole("link", { name: "privacy policy" }).getAttribute("href")).toBe(
      BRANDS.engine.links.privacy,
    );
    // In the card, each legal link once (the footer's are the page frame's).
    const card = page.getByRole("main");
    expect(await card.getByRole("link", { name: /privacy/iu }).count()).toBe(1);
    expect(await card.getByRole("link", { name: /terms/iu }).count()).toBe(1);
    await context.close();
  });

  it("starts the country select on the visitor's own country when it is known, and empty for ZZ", async () => {
    const known = await visit(fx.browser, "/register", { "cf-ipcountry": "NL" }, fx.service.baseUrl);
    await registerStepOne(known.page, uniqueEmail("country"));
    const country = known.page.getByRole("combobox", { name: "Country" });
    await expect.poll(() => country.inputValue()).toBe("NL");
    expect(await country.locator("option:checked").textContent()).toBe("Netherlands");
    await known.context.close();

    const unknown = await visit(fx.browser, "/register", {}, fx.service.baseUrl);
    await registerStepOne(unknown.page, uniqueEmail("nocountry"));
    await unknown.page.getByRole("option", { name: "Netherlands", exact: true }).waitFor({ state: "attached" });
    expect(await unknown.page.getByRole("combobox", { name: "Country" }).inputValue()).toBe("");
    await unknown.context.close();
  });

  it("says Invalid activation link. without a code, and shows a bad code's error with its reference", async () => {
    const { page, context } = await visit(fx.browser, "/account/activate", {}, fx.service.baseUrl);
    await page.getByText("Invalid activation link.").waitFor();
    await page.goto(`/account/activate?code=${"x".repeat(43)}`);
    await page.getByText("This link is not valid. Please request a new one.").waitFor();
    await page.getByText(/^Ref: [0-9a-f-]{36}$/u).waitFor();
    await context.close();
  });

  it("offers a new activation link from a link that cannot be used, and the older link then says it was replaced", async () => {
    const email = uniqueEmail("dead-end");
    await createPerson(
      { email, password: REGISTER_PASSWORD, first: "Ida", last: "Moe", country: "NO", flags: ["--inactive"] },
      fx.service.databaseUrl,
    );
    const resend = async (path: string) => {
      const { page, context } = await visit(fx.browser, path, {}, fx.service.baseUrl);
      await page.getByRole("heading", { name: "We could not activate your account" }).waitFor();
      await page.getByLabel("Email").fill(email);
      await page.getByRole("button", { name: "Resend activation link" }).click();
      await page.getByText(`If ${email} belongs to an account waiting for activation`).waitFor();
      expect(await page.getByRole("link", { name: "Back to sign in" }).isVisible()).toBe(true);
      await context.close();
    };
    const mails = () => fx.smtp.received.filter((m) => m.to.includes(email));
    await resend("/account/activate");
    await expect.poll(() => mails().length, { timeout: 15_000 }).toBe(1);
    await resend(`/account/activate?code=${"y".repeat(43)}`);
    await expect.poll(() => mails().length, { timeout: 15_000 }).toBe(2);
    const [older, newer] = mails().map((m) => linkIn(m, "/account/activate"));

    const { page, context } = await visit(fx.browser, `${older?.pathname}${older?.search}`, {}, fx.service.baseUrl);
    await page
      .getByText("This link was replaced by a newer one. Please use the link in the most recent email we sent you.")
      .waitFor();
    await page.getByText(/^Ref: [0-9a-f-]{36}$/u).waitFor();
    await page.goto(`${newer?.pathname}${newer?.search}`);
    await page.getByRole("heading", { name: "Your account is active" }).waitFor();
    await context.close();
  });
});
