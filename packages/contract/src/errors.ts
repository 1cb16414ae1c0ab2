import { z } from "zod/mini";

/**
 * Stable error codes of the gateway (STYLE.md §2: errors are codes, not sentences). Each maps to an HTTP
 * status here and to words in the i18n catalogs under `errors.<code>`.
 */
export const ERROR_STATUS = {
  invalid_request: 400,
  not_authenticated: 401,
  invalid_authentication: 401,
  csrf_invalid: 403,
  user_not_active: 403,
  user_disabled: 403,
  captcha_incorrect: 400,
  current_password_incorrect: 400,
  /** The new password is refused by the password policy (ASVS 6.2.4, 6.2.11): see PASSWORD_POLICY_CODES. */
  weak_password: 400,
  context_password: 400,
  common_password: 400,
  password_not_allowed: 403,
  bot_check_failed: 400,
  email_conflict: 409,
  code_invalid: 404,
  code_expired: 410,
  code_used: 410,
  /** A newer link of the same kind retired this one (decisions.md "Activation links"). */
  code_superseded: 410,
  /**
   * Issue #25: an activation link already used, for an account that is active: no failure, the person signs in.
   * Told only to the holder of a link that did work once (the mail's reader); an unknown code stays code_invalid.
   */
  account_already_active: 410,
  not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  unsupported_media_type: 415,
  /** Our addition: a site's sign-in needs the person's agreement to what it receives. */
  consent_required: 403,
  /** Issue #11: no company signs in people of the address's domain (spec §8 "corporate login"). */
  no_identity_provider: 404,
  /** Issue #11: the social provider cannot be reached or is not set up; spec §4: the page reloads. */
  social_idp_error: 422,
  /** Issue #11: the company's identity provider cannot be reached. */
  external_idp_error: 422,
  /** Issue #11: no pending social sign-in in this browser (expired, finished, or another browser's). */
  social_invalid_authentication: 401,
  /** Spec §8 "Account with this email already exists." (leads to the link-account flow). */
  social_email_exists: 409,
  /** Issue #11: an identity may not be removed while it is the account's only way to sign in. */
  identity_last_method: 409,
  /** Issue #12: the account has started as many trials as one account may (TRIALS_PER_ACCOUNT_MAX). */
  trial_limit_reached: 409,
  /** Issue #13: the forum bridge is off (DISCOURSE_URL and DISCOURSE_SECRET are not both set). */
  discourse_not_configured: 404,
  /** Issue #13: the DiscourseConnect request's `sig` is not the forum's HMAC of its payload. */
  discourse_signature_invalid: 400,
  /** Issue #13: the signed payload is not strict Base64 of a query with `nonce` and `return_sso_url`. */
  discourse_payload_invalid: 400,
  /** Issue #13: `return_sso_url` is not on the configured forum's origin (scheme, host and port; ASVS 5.1.5). */
  discourse_return_url_invalid: 400,
  /** Issue #13: this nonce was answered already (a replayed DiscourseConnect request). */
  discourse_nonce_used: 400,
  /** Issue #13: the licence token on the studio's completion page is not the signed-in person's. */
  studio_token_mismatch: 403,
  /**
   * Issue #26: a sensitive call needs a recent proof (STEP_UP_MS), with the account's second factor where it has one:
   * the page asks for it (`POST /account/reauthenticate`) and tries again.
   */
  reauthentication_required: 403,
  /** Issue #26: an authenticator code or a recovery code that is wrong, already used, or out of its time window. */
  second_factor_invalid: 400,
  /** Issue #26: a passkey's answer that does not verify (unknown credential, wrong origin, no user verification). */
  passkey_invalid: 400,
  /** Issue #26: the authenticator app is on already (turn it off first to move it to another phone). */
  totp_already_enabled: 409,
  user_temporarily_blocked: 429,
  rate_limited: 429,
  internal_server_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.hasOwn(ERROR_STATUS, value);
}

/**
 * Why the password policy refuses a password, in the order it checks: degenerate (one repeated character or
 * pattern, a simple sequence, only spaces), built on a context word (the person's name or e-mail, a brand's or
 * the product's name), or a breached password or a trivial variant of one.
 */
export const PASSWORD_POLICY_CODES = ["weak_password", "context_password", "common_password"] as const;
export type PasswordPolicyCode = (typeof PASSWORD_POLICY_CODES)[number];

export function isPasswordPolicyCode(value: unknown): value is PasswordPolicyCode {
  return (PASSWORD_POLICY_CODES as readonly unknown[]).includes(value);
}

/** The refusals of a mailed link's code: unknown, expired, used, or replaced by a newer link. A new link mends them. */
export const CODE_ERRORS = [
  "code_invalid",
  "code_expired",
  "code_used",
  "code_superseded",
] as const satisfies readonly ErrorCode[];

/** Whether an i18n key (`errors.<code>`) names one of the code refusals. */
export function isCodeErrorKey(key: string): boolean {
  return CODE_ERRORS.some((code) => key === `errors.${code}`);
}

/** Codes the generic error page (/error?error_code=) knows by name (spec §2). */
export const ERROR_PAGE_CODES = [
  "internal_server_error",
  "invalid_authentication",
  "user_disabled",
  "session_expired",
  "external_idp_error",
  "social_idp_error",
  "social_invalid_authentication",
  "social_user_disabled",
  "legacy_token_error",
  "legacy_invalid_authentication",
  /** Our addition: the OpenID Connect provider refused a site's or app's sign-in request (issue #10 §2). */
  "service_request_invalid",
  /**
   * Our addition (issue #11): the provider's address belongs to an account, but linking cannot be offered (the
   * provider does not vouch for the address, or the account never confirmed it): sign in with the password.
   */
  "social_account_exists",
  /** Our addition (issue #11): a provider's sign-in to an account whose activation mail is still unopened. */
  "user_not_active",
] as const;
export type ErrorPageCode = (typeof ERROR_PAGE_CODES)[number];

/** A field-level problem: `message` is an i18n key such as `validation.firstName.max`. */
export const FieldError = z.object({ field: z.string(), message: z.string() });
export type FieldError = z.infer<typeof FieldError>;

/** The error object of spec §3. `message` is English; clients translate by `error_code`. */
export const ErrorAnswer = z.object({
  HTTPStatus: z.int(),
  message: z.string(),
  guid: z.string(),
  error_code: z.string(),
  error_message: z.string(),
  error_guid: z.string(),
  /** Activation errors: the failure may pass (spec §3). Lockouts: the block ends by itself. */
  temporary: z.optional(z.boolean()),
  fields: z.optional(z.array(FieldError)),
});
export type ErrorAnswer = z.infer<typeof ErrorAnswer>;

/** Statuses the web client does not send to error reporting (spec §8). */
export const UNREPORTED_STATUSES: ReadonlySet<number> = new Set([401, 403, 404, 405]);
