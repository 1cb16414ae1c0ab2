import {
  type api,
  PASSWORD_RESET_TTL_MS,
  PASSWORD_SETUP_TTL_MS,
  type PasswordPolicyCode,
  RECOVERY_MAILS_PER_ADDRESS,
  routeUrl,
} from "@gatehouse/contract";
import type { z } from "zod";
import {
  CodeNotUsable,
  type CodeRefusal,
  type CodeStatus,
  codeHash,
  codeRefusal,
  codeStatus,
  decoyCodeWork,
  issueCode,
  spendCode,
  usableCode,
} from "../codes/codes.ts";
import { announceEnded } from "../events/sessions-ended.ts";
import type { MailSite } from "../mail/links.ts";
import { queueUserMail } from "../mail/outbox.ts";
import { counts } from "../metrics/counts.ts";
import { codesStore } from "../store/codes.ts";
import type { Db } from "../store/db.ts";
import { recoveryQuotaStore } from "../store/recovery-quota.ts";
import type { UserRow } from "../store/schema.ts";
import { type EndedSession, sessionsStore } from "../store/sessions.ts";
import { signInAttemptsStore } from "../store/sign-in-attempts.ts";
import { usersStore } from "../store/users.ts";
import { loseAccess } from "./access-lost.ts";
import { addressKey, normalizeEmail } from "./identifiers.ts";
import { proveMailbox } from "./mailbox.ts";
import type { Origin } from "./origin.ts";
import { codeOwnerContext } from "./password-context.ts";
import { passwordRefusal } from "./password-policy.ts";
import { hashPassword } from "./passwords.ts";
import { clearFailures } from "./throttle.ts";

/**
 * Counts recovery mails per address in fixed windows, atomically, in the quota's own table (never the sign-in
 * throttle's: a sign-in block must not stop recovery, and no sign-in identifier can reach a quota's key); false
 * once the window's quota is spent. A fixed window, not a sliding one: asking every half hour cannot starve the
 * owner.
 */
async function recoveryQuota(db: Db, email: string, now: number): Promise<boolean> {
  const { max, windowMs } = RECOVERY_MAILS_PER_ADDRESS;
  return (await recoveryQuotaStore.count(db, addressKey(email), now, windowMs)) <= max;
}

/**
 * POST /account/recover: the same answer, and the same work, whether or not the address has an account
 * (ASVS 6.3.8 / issue #4): a code is made and a transaction written either way, and mail leaves through the
 * outbox, never on the request's time. An account gets a reset link, or, without a password (invited, or made
 * through a provider that did not vouch for its address), a set-up link. A pending account with a password gets a
 * reset link too, not its activation link: activating would keep the password of whoever registered the address,
 * who never proved the mailbox (pre-account takeover); the new password activates it.
 */
export async function requestRecovery(db: Db, email: string, origin: Origin, now = Date.now()): Promise<void> {
  const user = await usersStore.findByEmail(db, normalizeEmail(email));
  const allowed = await recoveryQuota(db, normalizeEmail(email), now);
  if (!allowed) counts(db).block("recovery_quota");
  if (!user || !allowed || user.status === "disabled") return decoyCodeWork(db, now);
  await db.transaction().execute(async (trx) => {
    if (user.status === "pending" && user.password_hash === null) return sendSetup(trx, user, origin.site, now);
    const code = await issueCode(trx, user.id, "password_reset", PASSWORD_RESET_TTL_MS, now);
    const path = routeUrl("PASSWORD_RESET", { code, return_to: origin.returnTo });
    await queueUserMail(trx, user, "password_reset", path, origin.site, now);
  });
}

/** Issues an invitation's set-up code (7 days) and queues its mail, with the link on the brand's site. */
export async function sendSetup(db: Db, user: UserRow, site: MailSite, now = Date.now()): Promise<void> {
  const code = await issueCode(db, user.id, "password_setup", PASSWORD_SETUP_TTL_MS, now);
  await queueUserMail(db, user, "password_setup", routeUrl("PASSWORD_SETUP", { code }), site, now);
}

/**
 * POST /account/password/setup-link (issue #25): an account without a password (made through a provider or a
 * company) gets a set-up link by mail, the invitation's code and page, on the recovery mails' quota. An account
 * that has a password, or has spent the quota, gets nothing and the same answer (ASVS 6.3.8: nothing new is said).
 */
export async function requestSetupLink(db: Db, user: UserRow, site: MailSite, now = Date.now()): Promise<void> {
  const allowed = await recoveryQuota(db, user.email_normalized, now);
  if (!allowed) counts(db).block("recovery_quota");
  if (!allowed || user.password_hash !== null || user.status !== "active") return decoyCodeWork(db, now);
  await db.transaction().execute(async (trx) => {
    const code = await issueCode(trx, user.id, "password_setup", PASSWORD_SETUP_TTL_MS, now);
    await queueUserMail(trx, user, "password_add", routeUrl("PASSWORD_SETUP", { code }), site, now);
  });
}

/**
 * Whether a set-up code's page asks the survey: only an invitation's (its account is still pending). An account that
 * exists without a password and asked for the link itself was never invited (issue #25).
 */
export async function setupAsksSurvey(db: Db, code: string): Promise<boolean | undefined> {
  const row = await codesStore.findByHash(db, codeHash(code));
  if (row?.purpose !== "password_setup") return undefined; // a reset code: no survey to speak of
  return (await usersStore.findById(db, row.user_id))?.status === "pending";
}

/** GET /account/recover/{code}: the state of a reset or set-up code, without using it. */
export async function passwordCodeStatus(db: Db, code: string, now = Date.now()): Promise<CodeStatus> {
  const row = await codesStore.findByHash(db, codeHash(code));
  if (row?.purpose === "password_setup") return codeStatus(db, code, "password_setup", now);
  return codeStatus(db, code, "password_reset", now);
}

export type PasswordRefusal = PasswordPolicyCode | CodeRefusal;

/**
 * Sets a new password: hash, no pending update, no sign-in block, and every session ends (ASVS 7.4.3). Answers
 * the ended sessions, for the caller to announce once its transaction is committed.
 */
async function replacePassword(
  db: Db,
  user: UserRow,
  passwordHash: string,
  changes: Partial<UserRow>,
  now: number,
): Promise<EndedSession[]> {
  await usersStore.update(db, user.id, {
    password_hash: passwordHash,
    required_password_update: 0,
    updated_at: now,
    ...changes,
  });
  await clearFailures(db, user.email_normalized);
  // Unfinished sign-ins end with the sessions: they were proven with the password that is gone.
  await signInAttemptsStore.deleteForUser(db, user.id);
  return sessionsStore.deleteForUser(db, user.id);
}

/**
 * POST /account/reset_password: sets the password, ends sessions, mails a notice. Issue #28: the new password is
 * hashed first (argon2, outside any transaction); the code is spent in the transaction that sets it, so a failure
 * or a crash leaves either a used link with the password set or an unused link and the old password.
 */
export async function resetPassword(
  db: Db,
  code: string,
  password: string,
  site: MailSite,
  now = Date.now(),
): Promise<{ ok: true; user: UserRow } | { ok: false; refusal: PasswordRefusal }> {
  // Checked before the code is used, so a refused password leaves the link working.
  const refusal = passwordRefusal(password, await codeOwnerContext(db, code));
  if (refusal) return { ok: false, refusal };
  const usable = await usableCode(db, code, "password_reset", now);
  if (!usable.ok) return { ok: false, refusal: codeRefusal(usable.status) };
  const user = await usersStore.findById(db, usable.userId);
  if (!user) return { ok: false, refusal: "code_invalid" };
  const passwordHash = await hashPassword(password);
  // The forum's sign-out (accounts/access-lost.ts) is written in the same transaction, live sessions or not.
  let proven = user;
  const ended = await refusingUnusableCode(() =>
    loseAccess(db, { userId: user.id, kind: "password_reset", now }, async (trx) => {
      await spendCode(trx, code, "password_reset", user.id, now);
      await queueUserMail(trx, user, "password_changed", routeUrl("LOGIN"), site, now);
      // The reset link reached the mailbox (a pending account becomes active without what its registrant linked).
      proven = { ...(await proveMailbox(trx, user, { now })), required_password_update: 0 };
      return replacePassword(trx, user, passwordHash, {}, now);
    }),
  );
  if (!ended.ok) return ended;
  await announceEnded(db, ended.value, "password_reset");
  return { ok: true, user: proven };
}

/** Runs a transaction that spends a code; a code found spent meanwhile (it rolled back) is the caller's refusal. */
export async function refusingUnusableCode<T>(
  work: () => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; refusal: CodeRefusal }> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    if (error instanceof CodeNotUsable) return { ok: false, refusal: codeRefusal(error.status) };
    throw error;
  }
}

type MarketingInfo = z.output<(typeof api.setupPassword)["body"]>["marketingInfo"];

/**
 * POST /account/setup_password: an invited user chooses a password and answers the survey; the account is active.
 * As a reset (issue #28): hashed first, the code spent in the transaction that sets the password.
 */
export async function setupPassword(
  db: Db,
  code: string,
  password: string,
  marketingInfo: MarketingInfo,
  now = Date.now(),
): Promise<{ ok: true; user: UserRow } | { ok: false; refusal: PasswordRefusal }> {
  // Checked before the code is used, so a refused password leaves the link working.
  const refusal = passwordRefusal(password, await codeOwnerContext(db, code));
  if (refusal) return { ok: false, refusal };
  const usable = await usableCode(db, code, "password_setup", now);
  if (!usable.ok) return { ok: false, refusal: codeRefusal(usable.status) };
  const user = await usersStore.findById(db, usable.userId);
  if (!user) return { ok: false, refusal: "code_invalid" };
  // An account adding a password keeps what it answered before, if anything (issue #25).
  const changes: Partial<UserRow> = marketingInfo ? { marketing_info: JSON.stringify(marketingInfo) } : {};
  const passwordHash = await hashPassword(password);
  let proven = user;
  // Like a reset, with the forum's sign-out in the same transaction (accounts/access-lost.ts).
  const ended = await refusingUnusableCode(() =>
    loseAccess(db, { userId: user.id, kind: "password_reset", now }, async (trx) => {
      await spendCode(trx, code, "password_setup", user.id, now);
      // The set-up link reached the mailbox.
      proven = { ...(await proveMailbox(trx, user, { now })), required_password_update: 0 };
      return replacePassword(trx, user, passwordHash, changes, now);
    }),
  );
  if (!ended.ok) return ended;
  await announceEnded(db, ended.value, "password_reset");
  return { ok: true, user: proven };
}
