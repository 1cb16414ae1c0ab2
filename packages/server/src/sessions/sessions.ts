import { hash, randomBytes, timingSafeEqual } from "node:crypto";
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from "@gatehouse/contract";
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
}

/** Opens a signed-in session for the user and returns its fresh token. */
export async function openSession(db: Db, userId: string, meta: ClientMeta, now = Date.now()): Promise<string> {
  const token = newSessionToken();
  await sessionsStore.insert(db, {
    id: sessionId(token),
    user_id: userId,
    created_at: now,
    last_seen_at: now,
    expires_at: now + SESSION_ABSOLUTE_MS,
    ip: meta.ip.slice(0, 64),
    user_agent: meta.userAgent.slice(0, 512),
  });
  return token;
}

/** The live session behind a token, or undefined when unknown, idle too long, past its lifetime, or its user is not active. */
export async function findSession(db: Db, token: string, now = Date.now()): Promise<SessionWithUser | undefined> {
  const id = sessionId(token);
  const session = await sessionsStore.findWithUser(db, id);
  if (!session) return undefined;
  const expired = session.expires_at <= now || session.last_seen_at + SESSION_IDLE_MS <= now;
  if (expired || session.status !== "active") {
    await sessionsStore.delete(db, id);
    return undefined;
  }
  if (now - session.last_seen_at >= TOUCH_EVERY_MS) await sessionsStore.touch(db, id, now);
  return session;
}

export async function closeSession(db: Db, token: string): Promise<void> {
  await sessionsStore.delete(db, sessionId(token));
}

/** Ends every session of a user (password change, disabling, deletion). */
export async function closeUserSessions(db: Db, userId: string): Promise<number> {
  return sessionsStore.deleteForUser(db, userId);
}

/** Removes sessions past their lifetime or idle timeout; run periodically. */
export async function sweepSessions(db: Db, now = Date.now()): Promise<number> {
  return sessionsStore.deleteExpired(db, now, now - SESSION_IDLE_MS);
}
