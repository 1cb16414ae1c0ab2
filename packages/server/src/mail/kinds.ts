/** The mail kinds and the catalog section each takes its words from. */
export type MailKind =
  | "activation"
  | "password_reset"
  | "password_changed"
  | "password_setup"
  | "deletion_request"
  | "account_deleted";
