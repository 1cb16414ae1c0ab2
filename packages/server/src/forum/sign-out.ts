import type { DiscourseConfig } from "../config.ts";
import { queueJob } from "../jobs/worker.ts";
import { onSessionsEnded, type SessionEndReason } from "../sessions/ended.ts";
import type { Db } from "../store/db.ts";

/** The job that signs a person out of the forum (issue #13). */
export const FORUM_LOG_OUT_JOB = "forum_log_out";

/**
 * The ends of gateway sessions that mean "this person signed out or lost access" and so reach the forum: a
 * sign-out, disabling, deletion, and a password reset (whoever knew the old password is shut out everywhere).
 * Not a same-person sign-in replacing its session, an expiry (the forum keeps its own session length), nor a
 * password change, which keeps the session that made it.
 */
const FORUM_SIGN_OUT_REASONS: ReadonlySet<SessionEndReason> = new Set([
  "sign_out",
  "disabled",
  "deleted",
  "password_reset",
]);

export function reachesForum(reason: SessionEndReason): boolean {
  return FORUM_SIGN_OUT_REASONS.has(reason);
}

/** Queues the forum's sign-out of an account (its external_id is the account id), run by the job worker. */
export function queueForumLogOut(db: Db, userId: string, now = Date.now()): Promise<string> {
  return queueJob(db, FORUM_LOG_OUT_JOB, { externalId: userId }, now);
}

/** How long one call to the forum may take before it counts as failed (and is retried). */
const FORUM_TIMEOUT_MS = 10_000;

/**
 * Signs a person out of the forum through its admin API (meta.discourse.org topic 60464): the forum user of our
 * external_id, then `POST /admin/users/{id}/log_out`. A forum without that user (404) is done; any other failure
 * throws, so the worker retries it.
 */
export function forumLogOut(forum: DiscourseConfig): (payload: unknown) => Promise<void> {
  return async (payload) => {
    const api = forum.api;
    if (!api) throw new Error("DISCOURSE_API_KEY is not set");
    const { externalId } = payload as { externalId: string };
    const headers = { "Api-Key": api.key, "Api-Username": api.username, Accept: "application/json" };
    const lookup = await fetch(`${forum.origin}/users/by-external/${encodeURIComponent(externalId)}.json`, {
      headers,
      signal: AbortSignal.timeout(FORUM_TIMEOUT_MS),
      redirect: "error",
    });
    if (lookup.status === 404) return;
    if (!lookup.ok) throw new Error(`forum user lookup answered ${lookup.status}`);
    const body = (await lookup.json()) as { user?: { id?: unknown } };
    const id = body.user?.id;
    if (typeof id !== "number" || !Number.isSafeInteger(id)) throw new Error("forum user lookup answered no user id");
    const logOut = await fetch(`${forum.origin}/admin/users/${id}/log_out`, {
      method: "POST",
      headers,
      signal: AbortSignal.timeout(FORUM_TIMEOUT_MS),
      redirect: "error",
    });
    if (logOut.status === 404) return;
    if (!logOut.ok) throw new Error(`forum log_out answered ${logOut.status}`);
  };
}

/**
 * Sends the forum every sign-out that reaches it (issue #13), on any process that ends sessions on this database —
 * the gateway and the admin command line alike. The job is queued as the end is announced, right after the change
 * is committed and before the request that made it is answered; the worker of any node runs it.
 */
export function sendSignOutsToForum(db: Db, forum: DiscourseConfig | undefined, kick?: () => void): () => void {
  if (!forum?.api) return () => {};
  return onSessionsEnded(db, async ({ userId, reason }) => {
    if (!reachesForum(reason)) return;
    await queueForumLogOut(db, userId);
    kick?.();
  });
}
