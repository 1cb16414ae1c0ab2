import { queueJob } from "../jobs/worker.ts";
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
 * Issue #27: the durable record that gateway sessions ended, queued in the transaction that deletes them (a crash
 * keeps both or neither). Its handler (app.ts) ends what was opened under them: the provider sessions, their
 * non-offline grants and their back-channel logouts (oidc/sessions.ts). Its payload is `{ sessionIds }`.
 */
export const SESSIONS_ENDED_JOB = "sessions_ended";

/** Ids per job: a sweep may end thousands at once, and one query's parameters stay well under both databases' caps. */
const IDS_PER_JOB = 200;

/**
 * Queues the end of what was opened under these gateway sessions: call it in the transaction that deletes them. An
 * id whose session still lives when the job runs is left alone (the handler checks), so a caller may name a
 * person's sessions before it knows which of them its change keeps.
 */
export async function queueSessionsEnded(trx: Db, sessionIds: readonly string[], now = Date.now()): Promise<void> {
  for (let start = 0; start < sessionIds.length; start += IDS_PER_JOB) {
    await queueJob(trx, SESSIONS_ENDED_JOB, { sessionIds: sessionIds.slice(start, start + IDS_PER_JOB) }, now);
  }
}

/** What must follow an end of sessions in the transaction that ends them (the forum's sign-out: forum/sign-out.ts). */
export interface SessionsEndingHook {
  record(trx: Db, event: SessionsEnded, now: number): Promise<void>;
}

/**
 * Listeners and hooks by database: the app and the domain functions share the database object, so whatever ends
 * sessions announces it without being handed the app. Listeners hear it in the process that ended them, after the
 * change is committed (to wake a worker, say); what must not be lost is a job written in the change's transaction.
 * Another node learns it from the database (the session is gone), which stays the source of truth.
 */
const listeners = new WeakMap<Db, Set<SessionsEndedListener>>();
const hooks = new WeakMap<Db, Set<SessionsEndingHook>>();

function registered<T>(map: WeakMap<Db, Set<T>>, db: Db, item: T): () => void {
  let set = map.get(db);
  if (!set) {
    set = new Set();
    map.set(db, set);
  }
  set.add(item);
  return () => set.delete(item);
}

/** Hears every end of a gateway session on this database (sign-out, password change, disabling, deletion, expiry). */
export function onSessionsEnded(db: Db, listener: SessionsEndedListener): () => void {
  return registered(listeners, db, listener);
}

/** Adds a record to every end of sessions made through `endSessions` on this database, in its transaction. */
export function onSessionsEnding(db: Db, hook: SessionsEndingHook): () => void {
  return registered(hooks, db, hook);
}

/**
 * Ends sessions: `remove` deletes them, and in the same transaction the job that ends what was opened under them is
 * queued, with the hooks' records (issue #27: "through the durable queue, so a crash loses none of it"). A replaced
 * session has no follow-up (its provider session carries on under the new one), so it needs no transaction. Once
 * committed, the listeners hear it. `db` is the database itself: its hooks and listeners are found by it. Given a
 * transaction instead (a caller's larger change), the job is still written in it, but no hook or listener is reached.
 */
export async function endSessions<T extends EndedSession>(
  db: Db,
  reason: SessionEndReason,
  remove: (trx: Db) => Promise<T[]>,
  now = Date.now(),
): Promise<T[]> {
  if (reason === "replaced") {
    const ended = await remove(db);
    await announceEnded(db, ended, reason);
    return ended;
  }
  const set = [...(hooks.get(db) ?? [])];
  const record = async (trx: Db) => {
    const ended = await remove(trx);
    if (ended.length === 0) return ended;
    await queueSessionsEnded(
      trx,
      ended.map((session) => session.id),
      now,
    );
    for (const event of byUser(ended, reason)) for (const hook of set) await hook.record(trx, event, now);
    return ended;
  };
  const ended = db.isTransaction ? await record(db) : await db.transaction().execute(record);
  if (!db.isTransaction) await announceEnded(db, ended, reason);
  return ended;
}

function byUser(ended: readonly EndedSession[], reason: SessionEndReason): SessionsEnded[] {
  const ids = new Map<string, string[]>();
  for (const session of ended) ids.set(session.user_id, [...(ids.get(session.user_id) ?? []), session.id]);
  return [...ids].map(([userId, sessionIds]) => ({ userId, sessionIds, reason }));
}

/** Tells the listeners which sessions ended, one call per user. A listener's failure does not stop the others. */
export async function announceEnded(db: Db, ended: readonly EndedSession[], reason: SessionEndReason): Promise<void> {
  const set = listeners.get(db);
  if (!set?.size || ended.length === 0) return;
  const calls: (void | Promise<void>)[] = [];
  for (const event of byUser(ended, reason)) {
    for (const listener of set) calls.push(callSafely(listener, event));
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
