import {
  LOCKOUT_THRESHOLD,
  LOCKOUT_WINDOW_MS,
  SECOND_FACTOR_FAILURES_BLOCK_MS,
  SECOND_FACTOR_FAILURES_MAX,
  type SECOND_FACTOR_METHODS,
} from "@gatehouse/contract";
import { audit } from "../audit/audit.ts";
import type { MailSite } from "../mail/links.ts";
import { counts } from "../metrics/counts.ts";
import type { Db } from "../store/db.ts";
import type { UserRow } from "../store/schema.ts";
import { codeFailuresKey, secondFactorsStore } from "../store/second-factors.ts";
import { type AllowanceKey, throttleStore } from "../store/throttle.ts";
import { notifyFactorChange } from "./notify.ts";
import { spendRecoveryCode } from "./recovery-codes.ts";
import { matchingStep, openSecret } from "./totp.ts";

export type SecondFactorMethod = (typeof SECOND_FACTOR_METHODS)[number];

/** Where a code was given from, for the audit trail. */
export interface CodeSource {
  client?: { ip: string; userAgent: string; country?: string | null };
}

export type CodeCheck =
  | { ok: true; method: SecondFactorMethod; recoveryCodesLeft?: number }
  | { ok: false; refusal: "second_factor_invalid" | "user_temporarily_blocked" };

/**
 * Wrong second-factor codes are throttled per account like passwords (ASVS 6.3.1 / NIST SP 800-63B §5.2.2: six
 * digits are a small space), in their own allowance (scope `second_factor`, keyed by the user id): never mixed with
 * the password's, so a stranger's wrong passwords do not block the owner's codes, and an attacker who has the
 * password gets LOCKOUT_THRESHOLD guesses per LOCKOUT_WINDOW_MS, not more. The same atomic counter as passwords
 * (store/throttle.ts `claim`): the attempt is counted before the code is checked, so a burst checks at most
 * LOCKOUT_THRESHOLD codes.
 */
const RULE = { threshold: LOCKOUT_THRESHOLD, windowMs: LOCKOUT_WINDOW_MS } as const;
/**
 * The short blocks alone would let someone who has the password try about 480 codes a day, forever. So wrong codes
 * are also counted across blocks (scope `factor_total`) until a right one: after SECOND_FACTOR_FAILURES_MAX in a row
 * (NIST SP 800-63B §5.2.2), codes are refused for SECOND_FACTOR_FAILURES_BLOCK_MS or until support resets the factors.
 */
const TOTAL_RULE = { threshold: SECOND_FACTOR_FAILURES_MAX, windowMs: SECOND_FACTOR_FAILURES_BLOCK_MS } as const;

function allowanceOf(userId: string): AllowanceKey {
  const key = codeFailuresKey(userId);
  return { scope: "second_factor", key, accountKey: key };
}

function totalOf(userId: string): AllowanceKey {
  const key = codeFailuresKey(userId);
  return { scope: "factor_total", key, accountKey: key };
}

/** Forgets the account's count of wrong codes (its deletion, an administrator's reset). */
export async function clearCodeFailures(db: Db, userId: string): Promise<void> {
  await throttleStore.clearAccount(db, allowanceOf(userId).accountKey);
}

/**
 * Checks a second factor's code of the account: an authenticator app's (its time step accepted once: RFC 6238 §5.2,
 * no replay within the window) or a recovery code (spent once). A wrong, used or replayed code gets the same
 * answer, after the same work (the secret opened, the database asked once).
 */
export async function checkCode(
  db: Db,
  input: {
    user: UserRow;
    method: SecondFactorMethod;
    code: string;
    sessionSecret: string;
    source?: CodeSource;
    /** The code confirms a pending authenticator app (Turn on); otherwise only a confirmed one counts. */
    pending?: boolean;
    /** Issue #28: where a spent recovery code's notice links to; the mail is queued in the spend's transaction. */
    noticeSite?: MailSite;
  },
  now = Date.now(),
): Promise<CodeCheck> {
  const { user } = input;
  const allowance = allowanceOf(user.id);
  const attempt = await throttleStore.claim(db, allowance, now, RULE);
  if (attempt > RULE.threshold) {
    counts(db).block("blocked_attempt");
    return { ok: false, refusal: "user_temporarily_blocked" };
  }
  // Counted only for codes that are checked (a short block's refusals are not guesses).
  const inAll = await throttleStore.claim(db, totalOf(user.id), now, TOTAL_RULE);
  if (inAll > TOTAL_RULE.threshold) {
    counts(db).block("blocked_attempt");
    return { ok: false, refusal: "user_temporarily_blocked" };
  }
  const accepted =
    input.method === "totp"
      ? await acceptTotp(
          db,
          user.id,
          input.code,
          { sessionSecret: input.sessionSecret, pending: input.pending === true },
          now,
        )
      : await spendNoticed(db, input, now);
  if (accepted) {
    await throttleStore.clear(db, allowance);
    await throttleStore.clear(db, totalOf(user.id));
    if (input.method === "totp") return { ok: true, method: "totp" };
    const left = await secondFactorsStore.recoveryCodesLeft(db, user.id);
    return { ok: true, method: "recovery_code", recoveryCodesLeft: left };
  }
  const client = input.source?.client;
  const who = { userId: user.id, ip: client?.ip ?? null, userAgent: client?.userAgent ?? null };
  if (inAll === TOTAL_RULE.threshold) {
    const until = new Date(now + TOTAL_RULE.windowMs).toISOString();
    await audit(
      db,
      "lockout",
      { ...who, detail: `second-factor codes blocked until ${until} (${inAll} in a row)` },
      now,
    );
    return { ok: false, refusal: "user_temporarily_blocked" };
  }
  if (attempt < RULE.threshold) {
    await audit(db, "second_factor_failed", { ...who, detail: input.method }, now);
    return { ok: false, refusal: "second_factor_invalid" };
  }
  const until = new Date(now + RULE.windowMs).toISOString();
  await audit(db, "lockout", { ...who, detail: `second-factor codes blocked until ${until}` }, now);
  return { ok: false, refusal: "user_temporarily_blocked" };
}

/**
 * An authenticator code of the account's app, confirmed or pending (the confirmation's code is one too): the step it
 * matches must be later than the last accepted one, settled by one conditional update (two requests with one code:
 * one wins; a code of an earlier step after a later one: refused).
 */
export async function acceptTotp(
  db: Db,
  userId: string,
  code: string,
  options: { sessionSecret: string; pending: boolean },
  now = Date.now(),
): Promise<boolean> {
  const row = await secondFactorsStore.findTotp(db, userId);
  const usable = row !== undefined && (row.confirmed_at === null) === options.pending;
  const secret = usable ? openSecret(options.sessionSecret, userId, row.secret_sealed) : undefined;
  if (!secret) return false;
  const step = matchingStep(secret, code, now);
  return step !== null && (await secondFactorsStore.acceptStep(db, userId, step));
}

/**
 * Spends a recovery code and, with `noticeSite`, queues the person's notice and writes `recovery_code_used` in the
 * same transaction (issue #28): a crash after the spend can lose neither the mail (ASVS 6.3.7: the person is told a
 * recovery code was used) nor the trail's line (ASVS 7.2.1: authentication decisions are logged).
 */
function spendNoticed(
  db: Db,
  input: { user: UserRow; code: string; sessionSecret: string; source?: CodeSource; noticeSite?: MailSite },
  now: number,
): Promise<boolean> {
  const { user, noticeSite } = input;
  if (!noticeSite) return spendRecoveryCode(db, input.sessionSecret, user.id, input.code, now);
  const client = input.source?.client;
  return db.transaction().execute(async (trx) => {
    if (!(await spendRecoveryCode(trx, input.sessionSecret, user.id, input.code, now))) return false;
    const left = await secondFactorsStore.recoveryCodesLeft(trx, user.id);
    await notifyFactorChange(trx, user, { kind: "recovery_code_used", left }, noticeSite, now);
    const who = { userId: user.id, ip: client?.ip ?? null, userAgent: client?.userAgent ?? null };
    await audit(trx, "recovery_code_used", { ...who, country: client?.country ?? null, detail: `${left} left` }, now);
    return true;
  });
}
