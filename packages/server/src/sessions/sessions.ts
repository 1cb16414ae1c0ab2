import { hash, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS, type SignInMethod } from "@gatehouse/contract";
import { accountRefusal } from "../accounts/account-status.ts";
import { endSessions, type SessionEndReason } from "../events/sessions-ended.ts";
import type { Db } from "../store/db.ts";
import { type SessionWithUser, sessionsStore } from "../store/sessions.ts";
import { hmacSha256 } from "./hmac.ts";

/** A session token: 256 random bits (ASVS 7.2.3), base64url, 43 characters. */
export function newSessionToken(): string {
  return randomBytes(32).toString("base64url");
}

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/u;

export function isSessionToken(value: unknown): value is string {
  return typeof value === "string" && TOKEN_SHAPE.test(value);
}

/** Sessions are stored by hash, so a leaked table cannot be replayed as cookies (ASVS 7.2.4 spirit). */
export function sessionId(token: string): string {
  return hash("sha256", token, "hex");
}

/**
 * The CSRF synchronizer token of a session: an HMAC of its token under SESSION_SECRET (OWASP CSRF cheat sheet,
 * HMAC-based token). It is bound to the session, changes when the session rotates, and needs no storage, so
 * anonymous visitors get one without a database write.
 */
export function csrfToken(secret: string, token: string): string {
  let mac = macs.get(secret);
  if (!mac) {
    mac = hmacSha256(secret);
    macs.set(secret, mac);
  }
  return mac(`csrf:${token}`);
}

const macs = new Map<string, (message: string) => string>();

export function csrfMatches(secret: string, token: string, presented: string | undefined): boolean {
  if (!presented) return false;
  const expected = Buffer.from(csrfToken(secret, token));
  const given = Buffer.from(presented);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** Only write last_seen_at once a minute: a session check stays a single read. */
const TOUCH_EVERY_MS = 60_000;

export interface ClientMeta {
  ip: string;
  userAgent: string;
  /** Issue #27: the host name asked (a brand's), and the trusted country header's code; absent when unknown. */
  host?: string;
  country?: string | null;
}

/** How and when a finished sign-in was proven: recorded on the session it opens. */
export interface SignInRecord {
  userId: string;
  method: SignInMethod;
  idp?: string | null;
  /** RFC 8176 values of the sign-in's proofs. */
  amr: readonly string[];
  /** When the person proved who they are (the first proof of the attempt). */
  authTime: number;
}

/**
 * Opens a signed-in session for a finished sign-in (signin/attempt.ts is its only caller for a proof) and returns
 * its fresh token (ASVS 7.2.4: a new token at sign-in).
 */
export async function openSession(db: Db, record: SignInRecord, meta: ClientMeta, now = Date.now()): Promise<string> {
  const token = newSessionToken();
  await sessionsStore.insert(db, {
    id: sessionId(token),
    user_id: record.userId,
    created_at: now,
    last_seen_at: now,
    expires_at: now + SESSION_ABSOLUTE_MS,
    ip: meta.ip.slice(0, 64),
    user_agent: meta.userAgent.slice(0, 512),
    host: meta.host?.slice(0, 255) ?? null,
    country: meta.country ?? null,
    auth_time: record.authTime,
    auth_method: record.method,
    idp: record.idp ?? null,
    amr: record.amr.join(" "),
    // The sign-in is the session's first proof: sensitive calls count STEP_UP_MS from it (issue #26).
    fresh_at: now,
    // A new sign-in: the sessions it is carried to on other hosts share this id (sessions/links.ts).
    sign_in_id: randomUUID(),
  });
  return token;
}

/**
 * The live session behind a token, or undefined when unknown, idle too long, past its lifetime, or its account is
 * no longer usable (then it ends here, and its end is announced).
 */
export function findSession(db: Db, token: string, now = Date.now()): Promise<SessionWithUser | undefined> {
  return findSessionById(db, sessionId(token), now);
}

/** The live session of a stored id (a link code names the giving session by id), as `findSession` reads it. */
export async function findSessionById(db: Db, id: string, now = Date.now()): Promise<SessionWithUser | undefined> {
  const session = await sessionsStore.findWithUser(db, id);
  if (!session) return undefined;
  const expired = session.expires_at <= now || session.last_seen_at + SESSION_IDLE_MS <= now;
  if (expired || accountRefusal(session)) {
    await endSessions(db, expired ? "expired" : "disabled", (trx) => sessionsStore.delete(trx, id));
    return undefined;
  }
  if (now - session.last_seen_at >= TOUCH_EVERY_MS) {
    // Issue #10 §5: activity on any host keeps the whole sign-in alive, so its linked sessions idle out together
    // and the central host never forgets a sign-in a brand host still shows (one statement, once a minute).
    if (session.sign_in_id) await sessionsStore.touchSignIn(db, session.sign_in_id, now);
    else await sessionsStore.touch(db, id, now);
  }
  return session;
}

/** Signs out: the session ends, and with it the sessions of the same sign-in on other brand hosts (issue #10 §5). */
export async function closeSession(db: Db, token: string, reason: SessionEndReason = "sign_out"): Promise<void> {
  const id = sessionId(token);
  await endSessions(db, reason, (trx) => sessionsStore.deleteWithLinked(trx, id));
}

/**
 * Ends the browser's previous session at a new sign-in (ASVS 7.2.4). The same person signing in again continues
 * (`replaced`: what was opened under the old session, such as the provider's session, carries on under the new
 * one); another person taking over the browser is the previous person's sign-out.
 */
export async function replaceSession(db: Db, token: string, byUserId: string): Promise<void> {
  const id = sessionId(token);
  const previous = await sessionsStore.findWithUser(db, id);
  // Another person: the previous one's sign-out, on every host their sign-in reached (issue #10 §5), so the next
  // person on a shared computer never opens a brand site as them.
  if (previous && previous.user_id !== byUserId) {
    await endSessions(db, "sign_out", (trx) => sessionsStore.deleteWithLinked(trx, id));
    return;
  }
  await endSessions(db, "replaced", (same) => sessionsStore.delete(same, id));
}

/**
 * A sign-in by `byUserId` that is not finished yet (it owes a step) ends the browser's session of another person at
 * once, on every host their sign-in reached: the next person on a shared computer never finds the previous one
 * signed in. The same person's session stays until their new sign-in finishes and replaces it.
 */
export async function closeSessionOfAnother(db: Db, token: string, byUserId: string): Promise<void> {
  const previous = await sessionsStore.findWithUser(db, sessionId(token));
  if (previous && previous.user_id !== byUserId) await closeSession(db, token, "sign_out");
}

/**
 * Removes sessions past their lifetime or idle timeout, at most `limit` in one transaction (issue #28: the sweeper
 * calls again until fewer are left); run periodically on every node.
 */
export async function sweepSessions(db: Db, now = Date.now(), limit?: number): Promise<number> {
  const ended = await endSessions(db, "expired", (trx) =>
    sessionsStore.deleteExpired(trx, now, now - SESSION_IDLE_MS, limit),
  );
  return ended.length;
}
