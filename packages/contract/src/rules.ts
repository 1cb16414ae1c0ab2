import { z } from "zod";
import { CAPTCHA_ANSWER_MAX, EMAIL_MAX, NAME_LIMITS, PASSWORD_LIMITS } from "./constants.ts";
import { normalizeText, textLength } from "./text.ts";

/**
 * Field rules of spec §5. Every message is an i18n key (STYLE.md §4), the same on both sides.
 * Text fields are normalised (trimmed, whitespace collapsed) before their length is measured; passwords
 * are taken exactly as typed (ASVS 6.2.x: no silent trimming or truncation of secrets).
 */
const text = () => z.string().transform(normalizeText);

const maxChars = (max: number, error: string) =>
  z.string().refine((value) => textLength(value) <= max, { error, params: { max } });

export const loginEmailRule = text().pipe(
  z.string().min(1, { error: "validation.loginEmail.required" }).pipe(maxChars(EMAIL_MAX, "validation.email.invalid")),
);

export const emailRule = text().pipe(
  z
    .string()
    .min(1, { error: "validation.email.required" })
    .pipe(maxChars(EMAIL_MAX, "validation.email.invalid"))
    .pipe(z.email({ error: "validation.email.invalid" })),
);

export const loginPasswordRule = z
  .string()
  .min(1, { error: "validation.password.required" })
  .refine((value) => textLength(value) >= PASSWORD_LIMITS.loginMin, { error: "validation.password.loginMin" })
  // No account can hold a longer password (register and admin rules cap it), and it bounds hashing work.
  .refine((value) => textLength(value) <= PASSWORD_LIMITS.registerMax, { error: "validation.password.registerMax" });

export const registerPasswordRule = z
  .string()
  .min(1, { error: "validation.password.required" })
  .refine((value) => textLength(value) >= PASSWORD_LIMITS.registerMin, { error: "validation.password.registerMin" })
  .refine((value) => textLength(value) <= PASSWORD_LIMITS.registerMax, { error: "validation.password.registerMax" });

/**
 * The registration password's rule (spec §5: 8–64 characters) as a checklist item for the register form. The
 * server also refuses easy-to-guess passwords there (PASSWORD_POLICY_CODES), which only it can check: the form
 * shows PASSWORD_POLICY_HINT beside the list and learns the verdict from `register/validate`.
 */
export const REGISTER_PASSWORD_CHECKS = [
  {
    key: "passwordRules.registerLength",
    params: { min: PASSWORD_LIMITS.registerMin, max: PASSWORD_LIMITS.registerMax },
    test: (v: string) => textLength(v) >= PASSWORD_LIMITS.registerMin && textLength(v) <= PASSWORD_LIMITS.registerMax,
  },
] as const;

/** The hint that names what the server's password policy refuses, for every password form. */
export const PASSWORD_POLICY_HINT = "passwordRules.registerAvoid";

/** The "Your password should contain" checklist of spec §5, in display order. */
export const NEW_PASSWORD_CHECKS = [
  { key: "passwordRules.cases", test: (v: string) => /\p{Ll}/u.test(v) && /\p{Lu}/u.test(v) },
  { key: "passwordRules.number", test: (v: string) => /\p{Nd}/u.test(v) },
  { key: "passwordRules.symbol", test: (v: string) => /[^\p{L}\p{N}\s]/u.test(v) },
  { key: "passwordRules.length", test: (v: string) => textLength(v) >= PASSWORD_LIMITS.newMin },
] as const;

/** Spec §5: a warning, not an error, when the password has letters outside the Latin script. */
export function hasNonLatinLetters(value: string): boolean {
  return /(?!\p{Script=Latin})\p{L}/u.test(value);
}

export const newPasswordRule = z
  .string()
  .min(1, { error: "validation.password.required" })
  .refine((value) => NEW_PASSWORD_CHECKS.every((check) => check.test(value)), { error: "validation.password.rules" })
  .refine((value) => textLength(value) <= PASSWORD_LIMITS.newMax, { error: "validation.password.registerMax" });

export const oldPasswordRule = z.string().min(1, { error: "validation.oldPassword.invalid" });

export const firstNameRule = text().pipe(
  z
    .string()
    .min(1, { error: "validation.firstName.required" })
    .pipe(maxChars(NAME_LIMITS.firstNameMax, "validation.firstName.max")),
);

export const lastNameRule = text().pipe(
  z
    .string()
    .min(1, { error: "validation.lastName.required" })
    .pipe(maxChars(NAME_LIMITS.lastNameMax, "validation.lastName.max")),
);

export const countryRule = z
  .string()
  .min(1, { error: "validation.country.required" })
  .regex(/^[A-Za-z]{2}$/u, { error: "validation.country.required" })
  .transform((value) => value.toUpperCase());

export const captchaAnswerRule = text().pipe(
  z
    .string()
    .min(1, { error: "validation.captcha.required" })
    .pipe(maxChars(CAPTCHA_ANSWER_MAX, "errors.captcha_incorrect")),
);

/** Setup-password selects (spec §5): required, and the *Other text is required when Other is chosen. */
export const requiredSelectRule = z.string().min(1, { error: "validation.required" });
