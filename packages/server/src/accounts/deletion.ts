import { DELETION_TTL_MS, routeUrl } from "@gatehouse/contract";
import { audit } from "../audit/audit.ts";
import {
  type CodeRefusal,
  type CodeStatus,
  codeHash,
  codeRefusal,
  codeStatus,
  issueCode,
  spendCode,
  usableCode,
} from "../codes/codes.ts";
import { announceEnded } from "../events/sessions-ended.ts";
import { type MailSite, mailLanguage, mailLink } from "../mail/links.ts";
import { queueMail, queueUserMail, recipientOf } from "../mail/outbox.ts";
import { renderMail } from "../mail/render.ts";
import { auditStore } from "../store/audit.ts";
import { captchasStore } from "../store/captchas.ts";
import type { Db } from "../store/db.ts";
import { knownBrowsersStore } from "../store/known-browsers.ts";
import type { UserRow } from "../store/schema.ts";
import { secondFactorsStore } from "../store/second-factors.ts";
import { sessionsStore } from "../store/sessions.ts";
import { usersStore } from "../store/users.ts";
import { loseAccess } from "./access-lost.ts";
import { recheckPassword } from "./recheck-password.ts";
import { refusingUnusableCode } from "./recovery.ts";
import { type AttemptSource, forgetAddress } from "./throttle.ts";

export type DeletionRequestRefusal = "password_required" | "current_password_incorrect" | "user_temporarily_blocked";

/**
 * POST /account/delete/request (our addition, issue #5): the password re-confirms the person (ASVS 6.x
 * re-authentication for sensitive operations); an account without a password confirms by the mail alone. A wrong
 * password counts toward the sign-in block. Mails a single-use link valid one hour.
 */
export async function requestDeletion(
  db: Db,
  user: UserRow,
  password: string | undefined,
  site: MailSite,
  now = Date.now(),
  source: AttemptSource = {},
): Promise<{ ok: true } | { ok: false; refusal: DeletionRequestRefusal }> {
  const stored = user.password_hash;
  if (stored) {
    if (!password) return { ok: false, refusal: "password_required" };
    const refusal = await recheckPassword(db, { ...user, password_hash: stored }, password, source, now);
    if (refusal) return { ok: false, refusal };
  }
  await db.transaction().execute(async (trx) => {
    const code = await issueCode(trx, user.id, "deletion", DELETION_TTL_MS, now);
    await queueUserMail(trx, user, "deletion_request", routeUrl("ACCOUNT_DELETE", { code }), site, now);
  });
  return { ok: true };
}

/**
 * POST /account/delete: uses the code once and erases the user and everything that refers to it — sessions end
 * (announced), codes, queued mail and external identities go with the row (foreign keys), throttle rows by their
 * keys — and anonymises the user's audit events. What stays is an audit record without personal data, and a
 * farewell mail that the outbox erases once it is delivered (ASVS 6.3.6 asks to tell the user).
 */
export async function deleteAccount(
  db: Db,
  code: string,
  site: MailSite,
  now = Date.now(),
): Promise<{ ok: true } | { ok: false; refusal: CodeRefusal }> {
  const usable = await usableCode(db, code, "deletion", now);
  if (!usable.ok) return { ok: false, refusal: codeRefusal(usable.status) };
  const user = await usersStore.findById(db, usable.userId);
  if (!user) return { ok: false, refusal: "code_invalid" };
  const language = mailLanguage(site, user.language);
  const farewell = renderMail({
    kind: "account_deleted",
    language,
    site,
    link: mailLink(site, routeUrl("REGISTER"), language),
    recipient: recipientOf(user),
  });
  // The forum's sign-out (accounts/access-lost.ts) is written in the same transaction, live sessions or not; issue
  // #28: so is the code's spending, so a crash leaves either a used link and no account or an unused link.
  const ended = await refusingUnusableCode(() =>
    loseAccess(db, { userId: user.id, kind: "deleted", now }, async (trx) => {
      await spendCode(trx, code, "deletion", user.id, now);
      await auditStore.anonymizeUser(trx, user.id);
      await forgetAddress(trx, user.email_normalized);
      // Issue #26: its authenticator app, recovery codes, passkeys, remembered browsers, count of wrong codes.
      await secondFactorsStore.deleteAllOf(trx, user.id);
      // Issue #27: the browsers it signed in from (no foreign key either).
      await knownBrowsersStore.deleteAllOf(trx, user.id);
      // Ended explicitly rather than by the foreign key's cascade, so their end can be announced.
      const sessions = await sessionsStore.deleteForUser(trx, user.id);
      await usersStore.delete(trx, user.id);
      await audit(trx, "account_deleted", {}, now);
      await queueMail(trx, { userId: null, to: user.email, kind: "account_deleted", ...farewell }, now);
      // The code's row goes with the account; its hash alone stays (no personal data) so that the link says so.
      await captchasStore.spend(trx, deletedMark(code), now + DELETED_LINK_MEMORY_MS);
      return sessions;
    }),
  );
  if (!ended.ok) return ended;
  await announceEnded(db, ended.value, "deleted");
  return { ok: true };
}

/**
 * Issue #25: how long a used deletion link still says "the account was deleted" rather than "not valid". A month
 * covers a mail opened again later; the sweeper removes the mark after it.
 */
const DELETED_LINK_MEMORY_MS = 30 * 24 * 60 * 60 * 1000;

/** The spent-token key of a deletion link whose account is gone: a hash of the code's hash, no account in it. */
const deletedMark = (code: string) => codeHash(`deleted:${codeHash(code)}`);

/**
 * GET /account/delete/{code} (issue #25): the link's state without using it, so the screen asks only when the
 * link can still delete. Only the holder of a link that deleted an account learns `deleted` (they had the mail); an
 * unknown or forged code is `invalid` as before.
 */
export async function deletionLinkStatus(db: Db, code: string, now = Date.now()): Promise<CodeStatus | "deleted"> {
  const status = await codeStatus(db, code, "deletion", now);
  if (status !== "invalid") return status;
  return (await captchasStore.isSpent(db, deletedMark(code), now)) ? "deleted" : "invalid";
}
