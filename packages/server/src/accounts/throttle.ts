import { LOCKOUT_THRESHOLD, LOCKOUT_WINDOW_MS } from "@gatehouse/contract";
import type { Db } from "../store/db.ts";
import { throttleStore } from "../store/throttle.ts";
import { identifierKey } from "./identifiers.ts";

/**
 * Soft, time-limited block of password sign-in per identifier (ASVS 6.3.5 in v5 / 2.2.1 in v4). It is keyed by
 * what was typed, whether or not an account has it, so a block reveals nothing about which addresses exist.
 * Thresholds and why they cannot lock real users out for long: docs/decisions.md "Sign-in throttling".
 */
export async function throttleState(
  db: Db,
  identifier: string,
  now = Date.now(),
): Promise<{ blocked: boolean; failures: number }> {
  const row = await throttleStore.find(db, identifierKey(identifier));
  return { blocked: row?.locked_until != null && row.locked_until > now, failures: row?.failures ?? 0 };
}

/** Counts one wrong password; returns true when this failure starts a block. */
export async function recordFailure(db: Db, identifier: string, now = Date.now()): Promise<boolean> {
  const key = identifierKey(identifier);
  const row = await throttleStore.recordFailure(db, key, now);
  // After a block has run out the count starts again: an expired block is no head start for the next one.
  if (row.locked_until !== null && row.locked_until <= now) {
    await throttleStore.clear(db, key);
    return recordFailure(db, identifier, now);
  }
  if (row.failures >= LOCKOUT_THRESHOLD && row.locked_until === null) {
    await throttleStore.lock(db, key, now + LOCKOUT_WINDOW_MS, now);
    return true;
  }
  return false;
}

/** A correct password, a password reset or an admin's unlock clears the count. */
export async function clearFailures(db: Db, identifier: string): Promise<void> {
  await throttleStore.clear(db, identifierKey(identifier));
}

/** Drops throttle rows untouched for a day; run periodically. */
export async function sweepThrottle(db: Db, now = Date.now()): Promise<number> {
  return throttleStore.deleteStale(db, now - 24 * 60 * 60 * 1000);
}
