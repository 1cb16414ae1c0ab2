import { hash } from "node:crypto";
import { LOCKOUT_THRESHOLD, LOCKOUT_WINDOW_MS } from "@gatehouse/contract";
import { audit } from "../audit/audit.ts";
import { counts } from "../metrics/counts.ts";
import type { Db } from "../store/db.ts";
import { recoveryQuotaStore } from "../store/recovery-quota.ts";
import { type AllowanceKey, throttleStore } from "../store/throttle.ts";
import { trustedDevice } from "./device-cookies.ts";
import { addressKey } from "./identifiers.ts";
import type { PasswordCheck } from "./passwords.ts";

/**
 * Sign-in throttling (ASVS 6.3.1 / 6.1.1; thresholds and reasoning: docs/decisions.md "Sign-in throttling").
 * Every account has two kinds of allowance: one that all browsers it has not trusted share, keyed by the typed
 * address whether or not an account has it (so a block reveals nothing), and one per trusted browser, named by its
 * device cookie (OWASP device cookies). Strangers who use up the shared one block only themselves.
 */
const RULE = { threshold: LOCKOUT_THRESHOLD, windowMs: LOCKOUT_WINDOW_MS } as const;
const STALE_AFTER_MS = 24 * 60 * 60 * 1000;

/** Where a password attempt comes from, as the HTTP layer saw it. */
export interface AttemptSource {
  /** The device cookie the browser presented, and the secret device cookies are signed with. */
  device?: { cookie: string; secret: string };
  /** Who asked from where, for the audit trail (issue #27: the country too, for the person's activity list). */
  client?: { ip: string; userAgent: string; country?: string | null | undefined };
}

export type GuardedCheck = { status: "blocked" } | { status: "mismatch" } | { status: "match"; rehash: boolean };

/** The allowance an attempt spends: a trusted browser's own, or the one the account's other browsers share. */
export function allowanceOf(address: string, source: AttemptSource, now = Date.now()): AllowanceKey {
  const accountKey = addressKey(address);
  const deviceId = source.device && trustedDevice(source.device.secret, source.device.cookie, address, now);
  return deviceId
    ? { scope: "device", key: hash("sha256", `device:${deviceId}`, "hex"), accountKey }
    : { scope: "account", key: accountKey, accountKey };
}

/**
 * Checks a password under the throttle. The attempt is counted first, in one atomic statement, and only an
 * attempt within the allowance runs `verify`: however many arrive at once, on however many instances, at most
 * LOCKOUT_THRESHOLD passwords are verified per allowance and block. The attempt that uses up the allowance and
 * fails starts the block, and only that one is written to the audit trail: refusals during a block are neither
 * verified nor recorded, so nobody can flood the trail through them. A right password clears its allowance.
 */
export async function guardedCheck(
  db: Db,
  address: string,
  source: AttemptSource,
  verify: () => Promise<PasswordCheck>,
  userId: string | null,
  now = Date.now(),
): Promise<GuardedCheck> {
  const allowance = allowanceOf(address, source, now);
  const attempt = await throttleStore.claim(db, allowance, now, RULE);
  if (attempt > RULE.threshold) {
    counts(db).block("blocked_attempt");
    return { status: "blocked" };
  }
  const check = await verify();
  if (check.matches) {
    await throttleStore.clear(db, allowance);
    return { status: "match", rehash: check.rehash };
  }
  if (attempt < RULE.threshold) return { status: "mismatch" };
  await auditBlock(db, allowance, source, userId, now);
  return { status: "blocked" };
}

/** The audit record of a block, written once when it starts (no address in it: the user id says whose). */
async function auditBlock(db: Db, allowance: AllowanceKey, source: AttemptSource, userId: string | null, now: number) {
  const who = allowance.scope === "device" ? "a trusted browser" : "browsers the account has not trusted";
  const until = new Date(now + RULE.windowMs).toISOString();
  await audit(
    db,
    "lockout",
    {
      userId,
      ip: source.client?.ip,
      userAgent: source.client?.userAgent,
      country: source.client?.country ?? null,
      detail: `password sign-in from ${who} blocked until ${until}`,
    },
    now,
  );
}

/** Lifts every block on an address and forgets its counts (a password reset or change, an admin's unlock). */
export async function clearFailures(db: Db, address: string): Promise<void> {
  await throttleStore.clearAccount(db, addressKey(address));
}

/** Erases every counter kept for an address (the account's deletion): attempts, trusted devices', recovery mails. */
export async function forgetAddress(db: Db, address: string): Promise<void> {
  await throttleStore.clearAccount(db, addressKey(address));
  await recoveryQuotaStore.clear(db, addressKey(address));
}

/** Drops counters that hold nothing worth keeping: attempt counts untouched for a day, ended recovery windows. */
export async function sweepThrottle(db: Db, now = Date.now(), limit?: number): Promise<number> {
  const attempts = await throttleStore.deleteStale(db, now - STALE_AFTER_MS, now, limit);
  // The larger of the two batches: the sweeper calls again while either table may hold more (issue #28).
  return Math.max(attempts, await recoveryQuotaStore.deleteEnded(db, now, limit));
}
