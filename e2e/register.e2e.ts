import { describe, expect, it } from "vitest";
import { linkIn } from "../packages/server/test/smtp.ts";
import {
  expectAccessible,
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

  it("says Invalid activation link. without a code, and shows a bad code's error with its reference", async () => {
    const { page, context } = await visit(fx.browser, "/account/activate", {}, fx.service.baseUrl);
    await page.getByText("Invalid activation link.").waitFor();
    await page.goto(`/account/activate?code=${"x".repeat(43)}`);
    await page.getByText("This link is not valid. Please request a new one.").waitFor();
    await page.getByText(/^Ref: [0-9a-f-]{36}$/u).waitFor();
    await context.close();
  });
});
