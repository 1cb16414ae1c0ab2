import { describe, expect, it } from "vitest";
import {
  BotChallengeAnswer,
  CAPTCHA_ANSWER_MAX,
  captchaAnswerRule,
  countryRule,
  EMAIL_MAX,
  emailRule,
  FLAGS,
  Flags,
  firstNameRule,
  LoginBody,
  lastNameRule,
  loginEmailRule,
  loginPasswordRule,
  NAME_LIMITS,
  newPasswordRule,
  PASSWORD_LIMITS,
  RegisterBody,
  RegisterValidateBody,
  registerPasswordRule,
  SetupPasswordBody,
} from "../src/index.ts";

/**
 * What the web form shows and the server answers is the FIRST issue of a rule, with its params and path: these
 * pin them, so that a change in how the schemas are built (zod classic → zod/mini) cannot move them.
 */
type Parsed = { success: boolean; data?: unknown; error?: { issues: { message: string; path: PropertyKey[] }[] } };
const issuesOf = (result: Parsed) => (result.success ? [] : (result.error?.issues ?? []));
const firstIssue = (result: Parsed) => issuesOf(result)[0];
const messages = (result: Parsed) => issuesOf(result).map((issue) => issue.message);

describe("precedence: the first failing check is the one the person sees", () => {
  it("asks for a value before judging its length or form", () => {
    expect(messages(emailRule.safeParse(""))).toEqual(["validation.email.required"]);
    expect(messages(loginEmailRule.safeParse(""))).toEqual(["validation.loginEmail.required"]);
    expect(messages(captchaAnswerRule.safeParse(""))).toEqual(["validation.captcha.required"]);
    for (const rule of [loginPasswordRule, registerPasswordRule, newPasswordRule]) {
      expect(firstIssue(rule.safeParse(""))?.message).toBe("validation.password.required");
    }
  });

  it("names a too short password by the form's own minimum", () => {
    expect(messages(loginPasswordRule.safeParse("12345"))).toEqual(["validation.password.loginMin"]);
    expect(messages(registerPasswordRule.safeParse("1234567"))).toEqual(["validation.password.registerMin"]);
  });

  it("reports the checklist before the maximum for a new password that fails both", () => {
    const long = "a".repeat(PASSWORD_LIMITS.newMax + 1);
    expect(messages(newPasswordRule.safeParse(long))).toEqual([
      "validation.password.rules",
      "validation.password.registerMax",
    ]);
  });

  it("reports an over-long address once, before its form is judged", () => {
    expect(messages(emailRule.safeParse(`${"a".repeat(EMAIL_MAX)}@example.com`))).toEqual(["validation.email.invalid"]);
  });

  it("says a country is required for an empty or malformed code alike", () => {
    expect(messages(countryRule.safeParse(""))).toEqual(["validation.country.required", "validation.country.required"]);
    expect(messages(countryRule.safeParse("D1"))).toEqual(["validation.country.required"]);
  });
});

describe("normalisation comes before length", () => {
  it("measures a name, an address and a captcha answer after trimming and collapsing", () => {
    const name = ` ${"a".repeat(NAME_LIMITS.lastNameMax - 2)}  \t b `;
    expect(lastNameRule.safeParse(name)).toMatchObject({ success: true, data: `${"a".repeat(51)} b` });
    const local = "a".repeat(EMAIL_MAX - "@example.com".length);
    expect(emailRule.safeParse(`   ${local}@example.com   `)).toMatchObject({ success: true });
    expect(captchaAnswerRule.safeParse(`  ${"7".repeat(CAPTCHA_ANSWER_MAX)}  `).success).toBe(true);
  });

  it("counts whitespace-only text as empty", () => {
    expect(messages(firstNameRule.safeParse(" \t\n "))).toEqual(["validation.firstName.required"]);
  });
});

describe("params travel with the message", () => {
  it("gives every maximum of a text field its limit", () => {
    const cases = [
      [firstNameRule, NAME_LIMITS.firstNameMax],
      [lastNameRule, NAME_LIMITS.lastNameMax],
      [captchaAnswerRule, CAPTCHA_ANSWER_MAX],
    ] as const;
    for (const [rule, max] of cases) {
      expect(firstIssue(rule.safeParse("x".repeat(max + 1)))).toMatchObject({ code: "custom", params: { max } });
    }
    expect(firstIssue(loginEmailRule.safeParse("x".repeat(EMAIL_MAX + 1)))).toMatchObject({
      message: "validation.email.invalid",
      params: { max: EMAIL_MAX },
    });
  });
});

describe("objects", () => {
  it("drops keys the contract does not know, but keeps an ALTCHA challenge whole", () => {
    const login = LoginBody.parse({ email: "a@b.co", password: "secret1", admin: true });
    expect(login).toEqual({ email: "a@b.co", password: "secret1" });
    const challenge = { parameters: { algorithm: "SHA-256" }, signature: "abc" };
    expect(BotChallengeAnswer.parse(challenge)).toEqual(challenge);
  });

  it("leaves an absent optional key absent and fills defaults", () => {
    const login = LoginBody.parse({ email: "a@b.co", password: "secret1" });
    expect(Object.hasOwn(login, "isTrial")).toBe(false);
    const body = {
      email: "ann@example.com",
      password: "Gatehouse-2024",
      firstName: "Ann",
      lastName: "Lee",
      countryCode: "de",
    };
    expect(RegisterBody.parse(body).newsletterSubscription).toBe(false);
    expect(RegisterBody.parse({ ...body, newsletterSubscription: undefined }).newsletterSubscription).toBe(false);
    expect(Flags.parse({})).toEqual(Object.fromEntries(FLAGS.map((flag) => [flag, false])));
  });

  it("applies every transform to the parsed body", () => {
    const parsed = RegisterBody.parse({
      email: "  ann@example.com ",
      password: "  Gatehouse-2024  ",
      firstName: " Ann   Marie ",
      lastName: "Lee ",
      countryCode: "de",
    });
    expect(parsed).toMatchObject({
      email: "ann@example.com",
      password: "  Gatehouse-2024  ",
      firstName: "Ann Marie",
      lastName: "Lee",
      countryCode: "DE",
    });
  });

  it("asks for one field at least on register/validate, and undefined counts as absent", () => {
    expect(messages(RegisterValidateBody.safeParse({}))).toEqual(["validation.required"]);
    expect(messages(RegisterValidateBody.safeParse({ email: undefined }))).toEqual(["validation.required"]);
    expect(RegisterValidateBody.safeParse({ email: "" }).success).toBe(true);
  });

  it("puts a survey's missing *Other text at its own path, after the selects' own issues", () => {
    const result = SetupPasswordBody.safeParse({
      code: "c",
      password: "Abcdefghij1!",
      marketingInfo: { marketingSource: "Other", platformOfInterest: "Blender", role: "" },
    });
    expect(issuesOf(result).map(({ path, message }) => ({ path, message }))).toEqual([
      { path: ["marketingInfo", "role"], message: "validation.required" },
      { path: ["marketingInfo", "role"], message: "validation.required" },
      { path: ["marketingInfo", "marketingSourceOther"], message: "validation.required" },
    ]);
  });
});
