import { z } from "zod/mini";
import { CAPTCHA_ANSWER_MAX, EMAIL_MAX, NAME_LIMITS, PASSWORD_LIMITS, PRODUCT_CODE_MAX } from "./constants.ts";
import { normalizeText, textLength } from "./text.ts";

/**
 * Field rules of spec §5. Every message is an i18n key (STYLE.md §4), the same on both sides.
 * Text fields are normalised (trimmed, whitespace collapsed) before their length is measured; passwords
 * are taken exactly as typed (ASVS 6.2.x: no silent trimming or truncation of secrets).
 */
const text = () => z.pipe(z.string(), z.transform(normalizeText));

const maxChars = (max: number, error: string) =>
  z.string().check(z.refine((value) => textLength(value) <= max, { error, params: { max } }));

/** A normalised text field: required (its own message), then at most `max` code points. */
const requiredText = (required: string, max: number, tooLong: string) =>
  z.pipe(text(), z.pipe(z.string().check(z.minLength(1, { error: required })), maxChars(max, tooLong)));

export const loginEmailRule = requiredText("validation.loginEmail.required", EMAIL_MAX, "validation.email.invalid");

export const emailRule = z.pipe(
  text(),
  z.pipe(
    z.pipe(
      z.string().check(z.minLength(1, { error: "validation.email.required" })),
      maxChars(EMAIL_MAX, "validation.email.invalid"),
    ),
    z.email({ error: "validation.email.invalid" }),
  ),
);

/** A password taken exactly as typed: required, then between `min` and `max` code points, each with its key. */
const passwordRule = (min: number, minKey: string, max: number) =>
  z.string().check(
    z.minLength(1, { error: "validation.password.required" }),
    z.refine((value) => textLength(value) >= min, { error: minKey }),
    z.refine((value) => textLength(value) <= max, { error: "validation.password.registerMax" }),
  );

// No account can hold a password longer than registerMax (register and admin rules cap it), and the cap bounds
// hashing work.
export const loginPasswordRule = passwordRule(
  PASSWORD_LIMITS.loginMin,
  "validation.password.loginMin",
  PASSWORD_LIMITS.registerMax,
);

export const registerPasswordRule = passwordRule(
  PASSWORD_LIMITS.registerMin,
  "validation.password.registerMin",
  PASSWORD_LIMITS.registerMax,
);

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

export const newPasswordRule = z.string().check(
  z.minLength(1, { error: "validation.password.required" }),
  z.refine((value) => NEW_PASSWORD_CHECKS.every((check) => check.test(value)), { error: "validation.password.rules" }),
  z.refine((value) => textLength(value) <= PASSWORD_LIMITS.newMax, { error: "validation.password.registerMax" }),
);

export const oldPasswordRule = z.string().check(z.minLength(1, { error: "validation.oldPassword.invalid" }));

export const firstNameRule = requiredText(
  "validation.firstName.required",
  NAME_LIMITS.firstNameMax,
  "validation.firstName.max",
);

export const lastNameRule = requiredText(
  "validation.lastName.required",
  NAME_LIMITS.lastNameMax,
  "validation.lastName.max",
);

export const countryRule = z.pipe(
  z
    .string()
    .check(
      z.minLength(1, { error: "validation.country.required" }),
      z.regex(/^[A-Za-z]{2}$/u, { error: "validation.country.required" }),
    ),
  z.transform((value: string) => value.toUpperCase()),
);

export const captchaAnswerRule = requiredText(
  "validation.captcha.required",
  CAPTCHA_ANSWER_MAX,
  "errors.captcha_incorrect",
);

/** Setup-password selects (spec §5): required, and the *Other text is required when Other is chosen. */
export const requiredSelectRule = z.string().check(z.minLength(1, { error: "validation.required" }));

/** Issue #12: a trial's product code, as the product site puts it in the address (`productCode`). */
export const PRODUCT_CODE_PATTERN = new RegExp(`^[A-Za-z0-9][A-Za-z0-9._-]{0,${PRODUCT_CODE_MAX - 1}}$`, "u");
export const productCodeRule = z
  .string()
  .check(z.regex(PRODUCT_CODE_PATTERN, { error: "validation.productCode.invalid" }));
