import { onAccessLost } from "../accounts/access-lost.ts";
import type { DiscourseConfig } from "../config.ts";
import { onSessionsEnded, onSessionsEnding, type SessionEndReason } from "../events/sessions-ended.ts";
import { queueJob } from "../jobs/worker.ts";
import type { Db } from "../store/db.ts";

/** The job that signs a person out of the forum (issue #13). */
export const FORUM_LOG_OUT_JOB = "forum_log_out";

/**
 * Only the person's own sign-out reaches the forum as a session end (a same-person sign-in replacing its session
 * or an expiry does not: the forum keeps its own session length). Disabling, deletion, a password reset or set-up
 * and a password change reach it as account changes (accounts/access-lost.ts), queued in their own transaction
 * whether or not a gateway session was live — so their session ends are not queued again here.
 */
export function reachesForum(reason: SessionEndReason): boolean {
  return reason === "sign_out";
}

/** Queues the forum's sign-out of an account (its external_id is the account id), run by the job worker. */
export function queueForumLogOut(db: Db, userId: string, now = Date.now()): Promise<string> {
  return queueJob(db, FORUM_LOG_OUT_JOB, { externalId: userId }, now);
}

/** How long one call to the forum may take before it counts as failed (and is retried). */
const FORUM_TIMEOUT_MS = 10_000;

/** The most of a forum answer that is read: a user lookup is a few hundred bytes (its user's fields). */
export const FORUM_ANSWER_MAX_BYTES = 64 * 1024;

/**
 * The body of an answer as text, read from its stream up to `max` bytes: a longer one (a misbehaving or hostile
 * forum, or something between) is cancelled and throws, so the job is retried later instead of holding memory.
 */
async function readCapped(response: Response, max: number): Promise<string> {
  const declared = Number(response.headers.get("content-length"));
  if (declared > max) {
    await response.body?.cancel();
    throw new Error(`forum answer larger than ${max} bytes`);
  }
  if (!response.body) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw new Error(`forum answer larger than ${max} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Signs a person out of the forum through its admin API (meta.discourse.org topic 60464): the forum user of our
 * external_id, then `POST /admin/users/{id}/log_out`. A forum without that user (404) is done; any other failure
 * (an answer over 64 KiB included) throws, so the worker retries it.
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
    const body = JSON.parse(await readCapped(lookup, FORUM_ANSWER_MAX_BYTES)) as { user?: { id?: unknown } };
    const id = body.user?.id;
    if (typeof id !== "number" || !Number.isSafeInteger(id)) throw new Error("forum user lookup answered no user id");
    const logOut = await fetch(`${forum.origin}/admin/users/${id}/log_out`, {
      method: "POST",
      headers,
      signal: AbortSignal.timeout(FORUM_TIMEOUT_MS),
      redirect: "error",
    });
    // Its body is not needed: dropped unread, so nothing of an answer of any size is kept.
    await logOut.body?.cancel();
    if (logOut.status === 404) return;
    if (!logOut.ok) throw new Error(`forum log_out answered ${logOut.status}`);
  };
}

/**
 * Sends the forum every sign-out that reaches it (issue #13), on any process that changes accounts or ends sessions
 * on this database — the gateway and the admin command line alike — and only with the bridge and its API key set.
 * Its job is written in the transaction of the change that makes it — the sessions' deletion (events/sessions-ended.ts
 * `endSessions`, issue #27) or the account change — so a crash cannot keep one without the other; the listeners
 * that hear the change committed wake the worker. The worker of any node runs it.
 */
export function sendSignOutsToForum(db: Db, forum: DiscourseConfig | undefined, kick?: () => void): () => void {
  if (!forum?.api) return () => {};
  const offEnding = onSessionsEnding(db, {
    record: async (trx, { userId, reason }, now) => {
      if (reachesForum(reason)) await queueForumLogOut(trx, userId, now);
    },
  });
  const offEnded = onSessionsEnded(db, ({ reason }) => {
    if (reachesForum(reason)) kick?.();
  });
  const offLost = onAccessLost(db, {
    record: async (trx, userId, _loss, now) => {
      await queueForumLogOut(trx, userId, now);
    },
    committed: () => kick?.(),
  });
  return () => {
    offEnding();
    offEnded();
    offLost();
  };
}
