import { STEP_UP_MS } from "@gatehouse/contract";
import type { Db } from "../store/db.ts";
import { type SessionWithUser, sessionsStore } from "../store/sessions.ts";
import { factorsOf, hasSecondFactor } from "./factors.ts";

/**
 * Step-up (issue #26, ASVS 6.4.x / NIST SP 800-63B §4.2.3 reauthentication): a sensitive change needs a proof within
 * STEP_UP_MS in this session, and one that included a second factor where the account has one. `fresh_at` is set
 * only by a whole proof (the sign-in, or `POST /account/reauthenticate`, which asks for the second factor of an
 * account that has one); a sign-in that skipped the second factor (a remembered browser) has no `mfa` in its amr, so
 * it is fresh only for an account without a factor.
 */
export async function isFresh(db: Db, session: SessionWithUser, now = Date.now()): Promise<boolean> {
  if (session.fresh_at === null || now - session.fresh_at >= STEP_UP_MS) return false;
  if ((session.amr ?? "").split(" ").includes("mfa")) return true;
  return !hasSecondFactor(await factorsOf(db, session.user_id));
}

/** Until when the session's last proof counts for sensitive changes; null when it does not (any more). */
export async function freshUntil(db: Db, session: SessionWithUser, now = Date.now()): Promise<number | null> {
  return (await isFresh(db, session, now)) && session.fresh_at !== null ? session.fresh_at + STEP_UP_MS : null;
}

/**
 * A fresh proof in a session (a step-up, or a second factor just confirmed): `fresh_at` is now, and the proof's RFC
 * 8176 values join the session's (`mfa` once a second factor was part of it), so the provider's next ID token says so.
 */
export async function refreshSession(
  db: Db,
  session: SessionWithUser,
  added: readonly string[],
  now = Date.now(),
): Promise<number> {
  const amr = [...new Set([...(session.amr ?? "").split(" ").filter(Boolean), ...added])].join(" ");
  await sessionsStore.refresh(db, session.id, amr, now);
  session.fresh_at = now;
  session.auth_time = now;
  session.amr = amr;
  return now + STEP_UP_MS;
}
