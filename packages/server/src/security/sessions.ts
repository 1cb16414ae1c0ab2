import { isSocialPlatform, SECURITY_PAGE_SIZE, SESSION_IDLE_MS, SOCIAL_PLATFORM_NAMES } from "@gatehouse/contract";
import type { SessionEntry } from "@gatehouse/contract/security";
import type { z } from "zod/mini";
import { revokeOfflineGrants } from "../accounts/access-lost.ts";
import { deviceOf } from "../devices.ts";
import { endSessions } from "../events/sessions-ended.ts";
import { hmacSha256 } from "../sessions/hmac.ts";
import type { IdentityProvider } from "../settings/idps.ts";
import type { Db } from "../store/db.ts";
import { type ListedSession, type SignInKey, sessionsStore } from "../store/sessions.ts";
import { type Position, readCursor, writeCursor } from "./cursor.ts";

type Entry = z.output<typeof SessionEntry>;

/** Who is asking: the person, the browser's own session (the "current" entry) and what makes handles. */
export interface SessionsViewer {
  userId: string;
  sessionId: string;
  /** The browser's sign-in (null for a session from before sign-in ids). */
  signInId: string | null;
  sessionSecret: string;
}

/** One sign-in as the page lists it, with what ending it needs. */
interface SignIn {
  entry: Entry;
  key: SignInKey;
}

const HANDLE_LENGTH = 22;
const handles = new Map<string, (message: string) => string>();

/**
 * An entry's id: an HMAC-SHA-256 under SESSION_SECRET of its sign-in id (22 base64url characters, 132 bits), so no
 * stored id leaves the server (the session's id is its token's hash) and nobody can make one for a sign-in they do
 * not see. A session opened before sign-in ids stands alone; its handle is of its own id, in another domain.
 */
function handleOf(secret: string, key: SignInKey): string {
  let mac = handles.get(secret);
  if (!mac) {
    mac = hmacSha256(secret);
    handles.set(secret, mac);
  }
  const message = key.signInId !== null ? `sign-in:${key.signInId}` : `session:${key.id}`;
  return mac(message).slice(0, HANDLE_LENGTH);
}

/** Live as findSession reads it (sessions/sessions.ts): within both the absolute and the idle lifetime. */
function isLive(session: Pick<ListedSession, "expires_at" | "last_seen_at">, now: number): boolean {
  return session.expires_at > now && session.last_seen_at + SESSION_IDLE_MS > now;
}

const keyOf = (session: Pick<ListedSession, "id" | "sign_in_id">): string =>
  session.sign_in_id ?? `session:${session.id}`;

/** The provider's name of a social or corporate sign-in (IDPS_FILE), else null. */
function providerName(session: ListedSession, idps: readonly IdentityProvider[]): string | null {
  if ((session.auth_method !== "social" && session.auth_method !== "corporate") || !session.idp) return null;
  const idp = idps.find((candidate) => candidate.id === session.idp);
  if (idp) return idp.name;
  // A provider taken out of the file since: a social platform still has its name.
  return isSocialPlatform(session.idp) ? SOCIAL_PLATFORM_NAMES[session.idp] : null;
}

/** The person's live sessions as sign-ins: one entry for the sessions of one sign-in on their hosts. */
async function signInsOf(db: Db, viewer: SessionsViewer, idps: readonly IdentityProvider[], now: number) {
  const live = (await sessionsStore.listOfUser(db, viewer.userId)).filter((session) => isLive(session, now));
  const groups = new Map<string, ListedSession[]>();
  for (const session of live) groups.set(keyOf(session), [...(groups.get(keyOf(session)) ?? []), session]);
  return [...groups.values()].map((sessions) => signInOf(sessions, viewer, idps));
}

function signInOf(sessions: ListedSession[], viewer: SessionsViewer, idps: readonly IdentityProvider[]): SignIn {
  const byStart = [...sessions].sort((a, b) => a.created_at - b.created_at);
  const first = byStart[0] as ListedSession;
  const newest = byStart.at(-1) as ListedSession;
  const key = { id: first.id, signInId: first.sign_in_id };
  const hosts = new Set(sessions.flatMap((session) => (session.host ? [session.host] : [])));
  return {
    key,
    entry: {
      id: handleOf(viewer.sessionSecret, key),
      device: deviceOf(newest.user_agent),
      country: first.country,
      startedAt: first.created_at,
      lastActiveAt: Math.max(...sessions.map((session) => session.last_seen_at)),
      method: first.auth_method,
      provider: providerName(first, idps),
      hosts: [...hosts].sort(),
      current: sessions.some((session) => session.id === viewer.sessionId),
    },
  };
}

/** Newest activity first, then by id: a total order, so a cursor names one place in it. */
function byActivity(a: Entry, b: Entry): number {
  return b.lastActiveAt - a.lastActiveAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** An entry's id (handleOf: 22 base64url characters). */
const HANDLE = /[A-Za-z0-9_-]{22}/u;

const encodeCursor = (entry: Entry) => writeCursor({ at: entry.lastActiveAt, id: entry.id });

const isAfter = (entry: Entry, cursor: Position) =>
  entry.lastActiveAt < cursor.at || (entry.lastActiveAt === cursor.at && entry.id > cursor.id);

/**
 * Issue #27: a page of the person's sign-ins, newest activity first. The browser's own entry opens the first page,
 * whatever its activity (it is the one people look for, docs/decisions.md), and is then left out of the order, so
 * the pages hold every other entry once. Answers undefined for a cursor this server did not make.
 */
export async function listSignIns(
  db: Db,
  viewer: SessionsViewer,
  options: { idps: readonly IdentityProvider[]; cursor?: string | undefined; now?: number },
): Promise<{ sessions: Entry[]; nextCursor: string | null } | undefined> {
  const cursor = options.cursor === undefined ? undefined : readCursor(options.cursor, HANDLE);
  if (options.cursor !== undefined && !cursor) return undefined;
  const entries = (await signInsOf(db, viewer, options.idps, options.now ?? Date.now())).map((signIn) => signIn.entry);
  const current = cursor ? [] : entries.filter((entry) => entry.current);
  const others = entries.filter((entry) => !entry.current && (!cursor || isAfter(entry, cursor))).sort(byActivity);
  const page = others.slice(0, SECURITY_PAGE_SIZE);
  const last = page.at(-1);
  return {
    sessions: [...current, ...page],
    nextCursor: others.length > SECURITY_PAGE_SIZE && last ? encodeCursor(last) : null,
  };
}

/** What ending an entry found: the browser's own sign-in (for the caller's sign-out), another ended, or nothing. */
export type SignInEnd = "current" | "ended" | "not_found";

/**
 * Issue #27: ends one of the person's sign-ins by its handle: every session of it (its linked sessions on other
 * hosts), with what follows in the same transaction (events/sessions-ended.ts: provider sessions, back-channel
 * logouts, the forum). Only the person's own live sign-ins are looked at, every one of them whatever the handle, so
 * another person's handle, an unknown one and an ended one answer alike (ASVS 8.2.2, no IDOR). The browser's own
 * sign-in is left to the caller, whose sign-out also rotates the cookie.
 */
export async function endSignIn(db: Db, viewer: SessionsViewer, handle: string, now = Date.now()): Promise<SignInEnd> {
  const signIns = await signInsOf(db, viewer, [], now);
  const found = signIns.find((signIn) => signIn.entry.id === handle);
  if (!found) return "not_found";
  if (found.entry.current) return "current";
  const ended = await endSessions(db, "sign_out", (trx) => sessionsStore.deleteSignIn(trx, viewer.userId, found.key));
  // Ended meanwhile by another request (a sign-out, the sweep): as if it was not there.
  return ended.length > 0 ? "ended" : "not_found";
}

/**
 * Issue #27, "Sign out everywhere else": every other sign-in of the person ends (not the browser's own, nor its
 * linked sessions) with the grants of their sites (the job their end writes), and every offline grant of the
 * account is revoked with all it issued (offline refresh tokens: accounts/access-lost.ts, as a password change
 * does), in the one transaction that deletes the sessions. Answers how many live sign-ins ended.
 */
export async function endOtherSignIns(db: Db, viewer: SessionsViewer, now = Date.now()): Promise<number> {
  const keep = { id: viewer.sessionId, signInId: viewer.signInId };
  const ended = await endSessions(
    db,
    "sign_out",
    async (trx) => {
      const sessions = await sessionsStore.deleteOtherSignIns(trx, viewer.userId, keep);
      await revokeOfflineGrants(trx, viewer.userId, now);
      return sessions;
    },
    now,
  );
  return new Set(ended.filter((session) => isLive(session, now)).map(keyOf)).size;
}
