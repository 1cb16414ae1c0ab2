import type { Db } from "../store/db.ts";
import type { EndedSession } from "../store/sessions.ts";

/** Why gateway sessions ended; a listener may treat them alike (issue #10 §1: the gateway session is the truth). */
export type SessionEndReason =
  | "sign_out"
  /** The same person signed in again in the same browser: the new session continues this one. */
  | "replaced"
  | "password_changed"
  | "password_reset"
  | "disabled"
  | "deleted"
  | "expired";

/** One user's sessions that ended together; `sessionIds` are the stored ids (SHA-256 of the tokens). */
export interface SessionsEnded {
  userId: string;
  sessionIds: string[];
  reason: SessionEndReason;
}

export type SessionsEndedListener = (event: SessionsEnded) => void | Promise<void>;

/**
 * Listeners by database: the app and the domain functions share the database object, so whatever ends sessions
 * announces it without being handed the app. Announced in the process that ended them, after the change is
 * committed; another node learns it from the database (the session is gone), which stays the source of truth.
 */
const listeners = new WeakMap<Db, Set<SessionsEndedListener>>();

/** Hears every end of a gateway session on this database (sign-out, password change, disabling, deletion, expiry). */
export function onSessionsEnded(db: Db, listener: SessionsEndedListener): () => void {
  let set = listeners.get(db);
  if (!set) {
    set = new Set();
    listeners.set(db, set);
  }
  set.add(listener);
  return () => set.delete(listener);
}

/** Tells the listeners which sessions ended, one call per user. A listener's failure does not stop the others. */
export async function announceEnded(db: Db, ended: readonly EndedSession[], reason: SessionEndReason): Promise<void> {
  const set = listeners.get(db);
  if (!set?.size || ended.length === 0) return;
  const byUser = new Map<string, string[]>();
  for (const session of ended) byUser.set(session.user_id, [...(byUser.get(session.user_id) ?? []), session.id]);
  const calls: (void | Promise<void>)[] = [];
  for (const [userId, sessionIds] of byUser) {
    for (const listener of set) calls.push(callSafely(listener, { userId, sessionIds, reason }));
  }
  await Promise.all(calls);
}

async function callSafely(listener: SessionsEndedListener, event: SessionsEnded): Promise<void> {
  try {
    await listener(event);
  } catch {
    // The app's listeners log their own failures (app.onSessionsEnded); one failing must not undo a sign-out.
  }
}
