/**
 * Issue #27, the person's security page: the kinds of their own security activity it lists, read from the audit
 * trail (each names a catalog entry under `securityPage.activity`).
 */
export const ACTIVITY_KINDS = [
  "sign_in",
  "sign_in_failed",
  "lockout",
  "password_changed",
  "password_reset",
  "password_setup",
  "email_changed",
  "second_factor_added",
  "second_factor_removed",
  "second_factors_reset",
  "recovery_codes_created",
  "recovery_code_used",
  "identity_linked",
  "identity_unlinked",
  "app_granted",
  "app_removed",
  "session_ended",
  "signed_out_elsewhere",
] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];
