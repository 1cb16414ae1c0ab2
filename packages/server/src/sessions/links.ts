import { hash, randomBytes } from "node:crypto";
import { SESSION_LINK_CODE_TTL_MS } from "@gatehouse/contract";
import { audit } from "../audit/audit.ts";
import type { Db } from "../store/db.ts";
import { sessionLinksStore } from "../store/session-links.ts";
import { type SessionWithUser, sessionsStore } from "../store/sessions.ts";
import { type ClientMeta, findSessionById, newSessionToken, replaceSession, sessionId } from "./sessions.ts";

/**
 * Linked sessions across brand hosts (issue #10 §5; docs/decisions.md "Linked sessions"). Brand hosts have
 * cookies of their own, so a sign-in reaches another host by a browser round trip that the receiving host starts:
 * it keeps a random state in its own cookie and asks the host that has the session to give it; that host sends
 * the browser back with a code bound to the receiver's origin and state; the receiver redeems it server-side for a
 * session of its own, tied to the same sign-in. A code from someone else's browser cannot be redeemed here: the
 * state is this browser's (login CSRF, ASVS 10.1.2 spirit).
 */

const CODE_BYTES = 32;
const digest = (value: string) => hash("sha256", value, "hex");

/** A random value for a URL or a cookie: 256 bits, base64url (ASVS 7.2.3). */
export const randomValue = () => randomBytes(CODE_BYTES).toString("base64url");

/** The giving host's half: a single-use code for its session, for `origin` and the receiver's `state` only. */
export async function issueLinkCode(
  db: Db,
  giver: { id: string },
  origin: string,
  state: string,
  now = Date.now(),
): Promise<string> {
  const code = randomValue();
  await sessionLinksStore.insert(db, {
    id: digest(code),
    session_id: giver.id,
    origin,
    state_hash: digest(state),
    expires_at: now + SESSION_LINK_CODE_TTL_MS,
  });
  return code;
}

function isOlder(
  giver: Pick<SessionWithUser, "sign_in_id" | "auth_time">,
  current: Pick<SessionWithUser, "sign_in_id" | "auth_time"> | undefined,
): boolean {
  return current !== undefined && current.sign_in_id !== giver.sign_in_id && current.auth_time > giver.auth_time;
}

/** Why a code gives no session; the route logs it (never the code). */
export type LinkRefusal = "unknown" | "wrong_origin" | "wrong_state" | "session_gone" | "older";

export interface LinkRedemption {
  code: string;
  /** This host's origin, from the brands file. */
  origin: string;
  /** The state in this host's cookie, if it has one. */
  state: string | undefined;
  /** Whether this host is the central one (PUBLIC_URL), or the giver was: then the sign-in has reached it. */
  receiverIsCentral: boolean;
  giverIsCentral: boolean;
  client: ClientMeta;
  /** The browser's signed-in session here, replaced by the new one. */
  replacing: string | undefined;
  /** That session's sign-in, to tell which of the two is the browser's latest. */
  current: Pick<SessionWithUser, "sign_in_id" | "auth_time"> | undefined;
}

/**
 * The receiving host's half: takes the code once, checks it was made for this origin and this browser's state and
 * that the giving session still lives, and opens a session here for the same sign-in — the same person, the same
 * `auth_time`, method and identity provider, and the same owed step (it travels with the sign-in). Answers the
 * new session's token.
 */
export async function redeemLinkCode(
  db: Db,
  redemption: LinkRedemption,
  now = Date.now(),
): Promise<{ ok: true; token: string } | { ok: false; refusal: LinkRefusal }> {
  const link = await sessionLinksStore.consume(db, digest(redemption.code), now);
  if (!link) return { ok: false, refusal: "unknown" };
  if (link.origin !== redemption.origin) return { ok: false, refusal: "wrong_origin" };
  if (!redemption.state || link.state_hash !== digest(redemption.state)) return { ok: false, refusal: "wrong_state" };
  const giver = await findSessionById(db, link.session_id, now);
  if (!giver) return { ok: false, refusal: "session_gone" };
  // The latest sign-in of the browser wins: the central host does not trade a newer sign-in for an older one a brand
  // host still holds (signed in there by an activation link or the legacy flow before this one); that host takes
  // the central host's instead (routes/session-link.ts).
  if (redemption.receiverIsCentral && isOlder(giver, redemption.current)) return { ok: false, refusal: "older" };
  if (redemption.replacing) await replaceSession(db, redemption.replacing, giver.user_id);
  const linked = redemption.receiverIsCentral || redemption.giverIsCentral;
  const token = newSessionToken();
  await sessionsStore.insert(db, {
    id: sessionId(token),
    user_id: giver.user_id,
    created_at: now,
    last_seen_at: now,
    // A linked session ends when the sign-in it belongs to would (ASVS 7.3.2: the absolute lifetime is the sign-in's).
    expires_at: giver.expires_at,
    ip: redemption.client.ip.slice(0, 64),
    user_agent: redemption.client.userAgent.slice(0, 512),
    // Issue #27: the security page shows the sign-in's hosts; its country is the sign-in's (the first session's).
    host: redemption.client.host?.slice(0, 255) ?? null,
    country: redemption.client.country ?? null,
    auth_time: giver.auth_time,
    auth_method: giver.auth_method,
    idp: giver.idp,
    amr: giver.amr,
    fresh_at: giver.fresh_at,
    sign_in_id: giver.sign_in_id,
    linked: linked ? 1 : 0,
  });
  if (redemption.receiverIsCentral) await sessionsStore.markLinked(db, giver.id);
  await audit(
    db,
    "session_linked",
    { userId: giver.user_id, ip: redemption.client.ip, userAgent: redemption.client.userAgent, detail: link.origin },
    now,
  );
  return { ok: true, token };
}
