/** The mail kinds, each named after the catalog section it takes its words from. */
export const MAIL_KINDS = [
  "activation",
  "password_reset",
  "password_changed",
  "password_setup",
  /** A set-up link an account without a password asked for itself (issue #25): not an invitation's words. */
  "password_add",
  "deletion_request",
  "account_deleted",
  /** Issue #26: a second factor was added, removed, a recovery code used, or an administrator reset them all. */
  "second_factor_added",
  "second_factor_removed",
  "recovery_code_used",
  "second_factors_reset",
  /** Issue #27: a sign-in finished in a browser the account had never signed in from (signin/known-browsers.ts). */
  "new_browser_sign_in",
] as const;
export type MailKind = (typeof MAIL_KINDS)[number];
