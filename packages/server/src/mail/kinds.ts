/** The mail kinds and the catalog section each takes its words from. */
export type MailKind =
  | "activation"
  | "password_reset"
  | "password_changed"
  | "password_setup"
  /** A set-up link an account without a password asked for itself (issue #25): not an invitation's words. */
  | "password_add"
  | "deletion_request"
  | "account_deleted";
