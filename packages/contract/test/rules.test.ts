import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  countryRule,
  emailRule,
  firstNameRule,
  hasNonLatinLetters,
  LoginBody,
  lastNameRule,
  loginEmailRule,
  loginPasswordRule,
  NEW_PASSWORD_CHECKS,
  newPasswordRule,
  normalizeText,
  PASSWORD_POLICY_CODES,
  PASSWORD_POLICY_HINT,
  REGISTER_PASSWORD_CHECKS,
  registerPasswordRule,
} from "../src/index.ts";

const firstError = (result: { success: boolean; error?: { issues: { message: string }[] } }) =>
  result.success ? undefined : result.error?.issues[0]?.message;

describe("text normalisation (spec §5: lengths after trimming and collapsing whitespace)", () => {
  it("trims and collapses every kind of whitespace", () => {
    expect(normalizeText("  Ann \t\n  Marie  ")).toBe("Ann Marie");
  });

  it("measures a first name after normalising", () => {
    const padded = `  ${"a".repeat(36)}     ${"b".repeat(35)}  `; // 72 after collapsing
    expect(firstNameRule.safeParse(padded)).toMatchObject({
      success: true,
      data: `${"a".repeat(36)} ${"b".repeat(35)}`,
    });
    expect(firstError(firstNameRule.safeParse("a".repeat(73)))).toBe("validation.firstName.max");
  });

  it("counts code points, not UTF-16 units", () => {
    expect(lastNameRule.safeParse("😀".repeat(53)).success).toBe(true);
    expect(firstError(lastNameRule.safeParse("😀".repeat(54)))).toBe("validation.lastName.max");
  });

  it("requires names after trimming", () => {
    expect(firstError(firstNameRule.safeParse("   "))).toBe("validation.firstName.required");
    expect(firstError(lastNameRule.safeParse(""))).toBe("validation.lastName.required");
  });
});

describe("e-mail rules", () => {
  it("asks for an address when empty and a valid one otherwise", () => {
    expect(firstError(emailRule.safeParse(""))).toBe("validation.email.required");
    expect(firstError(emailRule.safeParse("not-an-address"))).toBe("validation.email.invalid");
    expect(emailRule.safeParse(" ann@example.com ")).toMatchObject({ success: true, data: "ann@example.com" });
  });

  it("refuses addresses longer than RFC 5321 allows", () => {
    expect(firstError(emailRule.safeParse(`${"a".repeat(250)}@x.io`))).toBe("validation.email.invalid");
  });

  it("login takes a username or an address with its own message", () => {
    expect(firstError(loginEmailRule.safeParse(" "))).toBe("validation.loginEmail.required");
    expect(loginEmailRule.safeParse("legacy-user").success).toBe(true);
  });
});

describe("password rules", () => {
  it("login: required, at least 6", () => {
    expect(firstError(loginPasswordRule.safeParse(""))).toBe("validation.password.required");
    expect(firstError(loginPasswordRule.safeParse("12345"))).toBe("validation.password.loginMin");
    expect(loginPasswordRule.safeParse("123456").success).toBe(true);
  });

  it("login does not trim: spaces are part of a password", () => {
    expect(LoginBody.parse({ email: "a@b.co", password: "  pass  " }).password).toBe("  pass  ");
  });

  it("register: 8 to 64", () => {
    expect(firstError(registerPasswordRule.safeParse("1234567"))).toBe("validation.password.registerMin");
    expect(registerPasswordRule.safeParse("12345678").success).toBe(true);
    expect(registerPasswordRule.safeParse("x".repeat(64)).success).toBe(true);
    expect(firstError(registerPasswordRule.safeParse("x".repeat(65)))).toBe("validation.password.registerMax");
  });

  it("new password: cases, number, symbol, 12+ (checklist order of spec §5)", () => {
    expect(NEW_PASSWORD_CHECKS.map((c) => c.key)).toEqual([
      "passwordRules.cases",
      "passwordRules.number",
      "passwordRules.symbol",
      "passwordRules.length",
    ]);
    expect(newPasswordRule.safeParse("Abcdefghij1!").success).toBe(true);
    for (const weak of ["abcdefghij1!", "ABCDEFGHIJ1!", "Abcdefghijk!", "Abcdefghijk1", "Abcdefgh1!"]) {
      expect(firstError(newPasswordRule.safeParse(weak)), weak).toBe("validation.password.rules");
    }
  });

  it("describes the registration rule as the register form's checklist, agreeing with the rule itself", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (value) => {
        const listed = REGISTER_PASSWORD_CHECKS.every((check) => check.test(value));
        expect(listed).toBe(registerPasswordRule.safeParse(value).success);
      }),
    );
    expect(PASSWORD_POLICY_HINT).toBe("passwordRules.registerAvoid");
    expect(PASSWORD_POLICY_CODES).toEqual(["weak_password", "context_password", "common_password"]);
  });

  it("warns about non-Latin letters only", () => {
    expect(hasNonLatinLetters("Passwörd-Ñ1")).toBe(false);
    expect(hasNonLatinLetters("пароль")).toBe(true);
    expect(hasNonLatinLetters("密码Abc")).toBe(true);
  });
});

describe("country", () => {
  it("requires a two-letter code and upper-cases it", () => {
    expect(countryRule.parse("de")).toBe("DE");
    expect(firstError(countryRule.safeParse(""))).toBe("validation.country.required");
    expect(firstError(countryRule.safeParse("DEU"))).toBe("validation.country.required");
  });
});
