import type { MailSite } from "../mail/links.ts";

/** Where a person acted when an account was made or a code mailed: the mail's language, brand and return address. */
export interface Origin {
  /** The page's language: a new account keeps it for its mail. */
  language: string;
  /** The brand the person acted on (the account's brand at sign-up), and where its mailed links open. */
  site: MailSite;
  /** return_to when it passed the allow-list. */
  returnTo: string | undefined;
}
