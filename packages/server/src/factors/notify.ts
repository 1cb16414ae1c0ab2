import { routeUrl } from "@gatehouse/contract";
import type { MailKind } from "../mail/kinds.ts";
import type { MailSite } from "../mail/links.ts";
import { queueUserMail } from "../mail/outbox.ts";
import type { MailVars } from "../mail/render.ts";
import type { Db } from "../store/db.ts";
import type { UserRow } from "../store/schema.ts";

/** The kinds of second factor a mail names (`mail.factor.<kind>` in the catalogs). */
export type FactorKind = "totp" | "passkey";

/** What happened to a person's second factors, as the mail tells it (issue #26; ASVS 6.3.7 / 6.3.x: notify). */
export type FactorChange =
  | { kind: "added"; factor: FactorKind }
  /** `lastFactor`: no second factor remains (the mail says signing in now needs only the password). */
  | { kind: "removed"; factor: FactorKind; lastFactor: boolean }
  | { kind: "recovery_code_used"; left: number }
  /** An administrator removed them all (c's admin command line). */
  | { kind: "reset" };

/**
 * Tells the person by mail, in the change's own transaction (`trx`): a factor added or removed, a recovery code used,
 * a reset. The link leads to Edit account, where the "Sign-in and security" section is. Called by the authenticator
 * app's and recovery codes' routes, by the passkeys' (b) and by the admin command line (c).
 */
export async function notifyFactorChange(
  trx: Db,
  user: UserRow,
  change: FactorChange,
  site: MailSite,
  now = Date.now(),
): Promise<void> {
  const { kind, vars } = mailOf(change);
  await queueUserMail(trx, user, kind, routeUrl("ACCOUNT_EDIT"), site, now, vars);
}

function mailOf(change: FactorChange): { kind: MailKind; vars: MailVars } {
  switch (change.kind) {
    case "added":
      return { kind: "second_factor_added", vars: factorVars(change.factor) };
    case "removed": {
      const remaining = { key: `mail.second_factor_removed.${change.lastFactor ? "none_left" : "some_left"}` };
      return { kind: "second_factor_removed", vars: { ...factorVars(change.factor), remaining } };
    }
    case "recovery_code_used":
      return { kind: "recovery_code_used", vars: { left: String(change.left) } };
    case "reset":
      return { kind: "second_factors_reset", vars: {} };
  }
}

const factorVars = (factor: FactorKind): MailVars => ({ factor: { key: `mail.factor.${factor}` } });
