import { createHash } from "node:crypto";
import { DISCOURSE_NONCE_TTL_MS } from "@gatehouse/contract";
import { audit } from "../audit/audit.ts";
import type { DiscourseConfig } from "../config.ts";
import type { ClientMeta } from "../sessions/sessions.ts";
import type { Db } from "../store/db.ts";
import { discourseNoncesStore } from "../store/discourse-nonces.ts";
import type { SessionWithUser } from "../store/sessions.ts";
import { usersStore } from "../store/users.ts";
import { answerUrl, type DiscourseRefusal, readRequest, suggestUsername } from "./discourse-connect.ts";

export type ForumSignInOutcome =
  | { ok: true; loginUrl: string }
  | {
      ok: false;
      refusal: DiscourseRefusal | "discourse_nonce_used" | "not_authenticated";
    };

/**
 * Answers the forum's DiscourseConnect request for the browser's gateway session (issue #13), as a pipeline:
 * the request's signature and payload → a session that may sign in elsewhere → the nonce, answered once → the
 * answer for the account → the audit record. A bad request is refused before anyone is asked to sign in; the
 * nonce is spent only by an answer, so a visitor who signs in first comes back with the same link.
 */
export async function forumSignIn(
  db: Db,
  forum: DiscourseConfig,
  query: { sso: string; sig: string },
  session: SessionWithUser | undefined,
  client: ClientMeta,
  now = Date.now(),
): Promise<ForumSignInOutcome> {
  const read = readRequest(forum, query.sso, query.sig);
  if (!read.ok) return read;
  // Every session is a finished sign-in (issue #24): one that owed a step does not exist until the step is done.
  if (!session) return { ok: false, refusal: "not_authenticated" };
  const user = await usersStore.findById(db, session.user_id);
  if (!user) return { ok: false, refusal: "not_authenticated" };
  const nonceHash = createHash("sha256").update(read.request.nonce).digest("hex");
  if (!(await discourseNoncesStore.use(db, nonceHash, now, now + DISCOURSE_NONCE_TTL_MS))) {
    return { ok: false, refusal: "discourse_nonce_used" };
  }
  const name = `${user.first_name} ${user.last_name}`.trim();
  const loginUrl = answerUrl(forum.secret, read.request, {
    externalId: user.id,
    email: user.email,
    name,
    username: suggestUsername(name, user.email),
    requireActivation: user.email_verified !== 1,
  });
  await audit(
    db,
    "signed_in_elsewhere",
    { userId: user.id, ip: client.ip, userAgent: client.userAgent, detail: `forum (${forum.origin})` },
    now,
  );
  return { ok: true, loginUrl };
}
