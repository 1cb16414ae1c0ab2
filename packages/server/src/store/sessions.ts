import type { CompiledQuery } from "kysely";
import type { Db } from "./db.ts";
import type { NewSessionRow, SessionRow, UserRow } from "./schema.ts";
import { SWEEP_BATCH } from "./sweep.ts";

export type SessionWithUser = Omit<SessionRow, "pending_step"> & {
  email: string;
  first_name: string;
  last_name: string;
  status: UserRow["status"];
};

/** A session that ended: its stored id and its user, for whoever listens for ended sessions. */
export type EndedSession = Pick<SessionRow, "id" | "user_id">;
const ENDED = ["id", "user_id"] as const;

/** Issue #27: what the security page shows of a session. */
export type ListedSession = Pick<
  SessionRow,
  | "id"
  | "sign_in_id"
  | "created_at"
  | "last_seen_at"
  | "expires_at"
  | "user_agent"
  | "host"
  | "country"
  | "auth_method"
  | "idp"
>;

/** One sign-in: its id, or for a session opened before sign-in ids, that session alone. */
export interface SignInKey {
  id: string;
  signInId: string | null;
}

/** An ended session with what tells its sign-in and whether it was still live. */
export type EndedSignInSession = EndedSession & Pick<SessionRow, "sign_in_id" | "last_seen_at" | "expires_at">;

const findWithUserQueries = new WeakMap<Db, CompiledQuery>();

function findWithUserQuery(db: Db, id: string) {
  return db
    .selectFrom("sessions")
    .innerJoin("users", "users.id", "sessions.user_id")
    .select([
      "sessions.id",
      "sessions.user_id",
      "sessions.created_at",
      "sessions.last_seen_at",
      "sessions.expires_at",
      "sessions.ip",
      "sessions.user_agent",
      "sessions.auth_time",
      "sessions.auth_method",
      "sessions.idp",
      "sessions.amr",
      "sessions.fresh_at",
      "sessions.sign_in_id",
      "sessions.linked",
      "users.email",
      "users.first_name",
      "users.last_name",
      "users.status",
    ])
    .where("sessions.id", "=", id);
}

/** Queries of the sessions table (signed-in sessions only; anonymous ones live in the cookie alone). */
export const sessionsStore = {
  insert: async (db: Db, row: NewSessionRow): Promise<void> => {
    await db.insertInto("sessions").values(row).execute();
  },

  /** The hot path of every signed-in request: compiled once per database, then only its parameter changes. */
  findWithUser: async (db: Db, id: string): Promise<SessionWithUser | undefined> => {
    let compiled = findWithUserQueries.get(db);
    if (!compiled) {
      compiled = findWithUserQuery(db, "").compile();
      findWithUserQueries.set(db, compiled);
    }
    const result = await db.executeQuery<SessionWithUser>({ ...compiled, parameters: [id] });
    return result.rows[0];
  },

  touch: async (db: Db, id: string, at: number): Promise<void> => {
    await db.updateTable("sessions").set({ last_seen_at: at }).where("id", "=", id).execute();
  },

  /** Activity on one session of a sign-in counts for all of them (linked sessions on other hosts, issue #10 §5). */
  touchSignIn: async (db: Db, signInId: string, at: number): Promise<void> => {
    await db.updateTable("sessions").set({ last_seen_at: at }).where("sign_in_id", "=", signInId).execute();
  },

  /** Deletes one session; answers it when there was one, so its end can be announced. */
  delete: async (db: Db, id: string): Promise<EndedSession[]> =>
    db.deleteFrom("sessions").where("id", "=", id).returning(ENDED).execute(),

  /** Deletes one session and the sessions of the same sign-in on other hosts (issue #10 §5). */
  deleteWithLinked: async (db: Db, id: string): Promise<EndedSession[]> => {
    const [ended] = await db
      .deleteFrom("sessions")
      .where("id", "=", id)
      .returning([...ENDED, "sign_in_id"])
      .execute();
    if (!ended) return [];
    const linked = ended.sign_in_id
      ? await db.deleteFrom("sessions").where("sign_in_id", "=", ended.sign_in_id).returning(ENDED).execute()
      : [];
    return [{ id: ended.id, user_id: ended.user_id }, ...linked];
  },

  /** The sign-in has reached the central host: the session says Linked from now on. */
  /**
   * A fresh proof in the session (issue #26 step-up): when, and the session's RFC 8176 values with the proof's. It is
   * an authentication, so `auth_time` moves too: an ID token that says `mfa` never carries an older sign-in's time.
   */
  refresh: async (db: Db, id: string, amr: string, at: number): Promise<void> => {
    await db.updateTable("sessions").set({ fresh_at: at, auth_time: at, amr }).where("id", "=", id).execute();
  },

  markLinked: async (db: Db, id: string): Promise<void> => {
    await db.updateTable("sessions").set({ linked: 1 }).where("id", "=", id).execute();
  },

  deleteForUser: async (db: Db, userId: string): Promise<EndedSession[]> =>
    db.deleteFrom("sessions").where("user_id", "=", userId).returning(ENDED).execute(),

  /** Ends a user's sessions except one (the one changing the password keeps working). */
  deleteOthersForUser: async (db: Db, userId: string, keepId: string): Promise<EndedSession[]> =>
    db.deleteFrom("sessions").where("user_id", "=", userId).where("id", "!=", keepId).returning(ENDED).execute(),

  /**
   * Issue #27: a person's sessions as the security page shows them, expired ones included (the caller applies the
   * lifetimes, as findSession does). Served by sessions_user_id; a person has a few hundred at most.
   */
  listOfUser: async (db: Db, userId: string): Promise<ListedSession[]> =>
    db
      .selectFrom("sessions")
      .select([
        "id",
        "sign_in_id",
        "created_at",
        "last_seen_at",
        "expires_at",
        "user_agent",
        "host",
        "country",
        "auth_method",
        "idp",
      ])
      .where("user_id", "=", userId)
      .execute(),

  /** The stored ids of a person's sessions (sessions_user_id). */
  idsOfUser: async (db: Db, userId: string): Promise<string[]> =>
    (await db.selectFrom("sessions").select("id").where("user_id", "=", userId).execute()).map((row) => row.id),

  /** Which of these ids still name a session (the primary key). */
  existing: async (db: Db, ids: readonly string[]): Promise<Set<string>> => {
    if (ids.length === 0) return new Set();
    const rows = await db.selectFrom("sessions").select("id").where("id", "in", ids).execute();
    return new Set(rows.map((row) => row.id));
  },

  /**
   * Issue #27: ends one sign-in of a person: the sessions of that sign-in, or the one session of an old sign-in that
   * has no sign-in id. Never another person's: the user id is part of the condition.
   */
  deleteSignIn: async (db: Db, userId: string, signIn: SignInKey): Promise<EndedSession[]> => {
    let query = db.deleteFrom("sessions").where("user_id", "=", userId);
    query =
      signIn.signInId !== null ? query.where("sign_in_id", "=", signIn.signInId) : query.where("id", "=", signIn.id);
    return query.returning(ENDED).execute();
  },

  /** Issue #27, "Sign out everywhere else": every session of the person but those of the kept one's sign-in. */
  deleteOtherSignIns: async (db: Db, userId: string, keep: SignInKey): Promise<EndedSignInSession[]> => {
    let query = db.deleteFrom("sessions").where("user_id", "=", userId).where("id", "!=", keep.id);
    const keptSignIn = keep.signInId;
    if (keptSignIn !== null) {
      query = query.where((eb) => eb.or([eb("sign_in_id", "is", null), eb("sign_in_id", "!=", keptSignIn)]));
    }
    return query.returning([...ENDED, "sign_in_id", "last_seen_at", "expires_at"]).execute();
  },

  /** At most `limit` sessions past their lifetime or idle timeout per call (issue #28: the sweeper calls again). */
  deleteExpired: async (db: Db, now: number, idleBefore: number, limit = SWEEP_BATCH): Promise<EndedSession[]> =>
    db
      .deleteFrom("sessions")
      .where("id", "in", (eb) =>
        eb
          .selectFrom("sessions")
          .select("id")
          .where((inner) => inner.or([inner("expires_at", "<=", now), inner("last_seen_at", "<=", idleBefore)]))
          .limit(limit),
      )
      .returning(ENDED)
      .execute(),
};
