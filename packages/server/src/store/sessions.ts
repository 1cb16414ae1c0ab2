import type { CompiledQuery } from "kysely";
import type { Db } from "./db.ts";
import type { SessionRow, UserRow } from "./schema.ts";

export type SessionWithUser = SessionRow & {
  email: string;
  first_name: string;
  last_name: string;
  status: UserRow["status"];
};

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
      "users.email",
      "users.first_name",
      "users.last_name",
      "users.status",
    ])
    .where("sessions.id", "=", id);
}

/** Queries of the sessions table (signed-in sessions only; anonymous ones live in the cookie alone). */
export const sessionsStore = {
  insert: async (db: Db, row: SessionRow): Promise<void> => {
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

  delete: async (db: Db, id: string): Promise<void> => {
    await db.deleteFrom("sessions").where("id", "=", id).execute();
  },

  deleteForUser: async (db: Db, userId: string): Promise<number> => {
    const result = await db.deleteFrom("sessions").where("user_id", "=", userId).executeTakeFirst();
    return Number(result.numDeletedRows);
  },

  /** Ends a user's sessions except one (the one changing the password keeps working). */
  deleteOthersForUser: async (db: Db, userId: string, keepId: string): Promise<number> => {
    const result = await db
      .deleteFrom("sessions")
      .where("user_id", "=", userId)
      .where("id", "!=", keepId)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  },

  deleteExpired: async (db: Db, now: number, idleBefore: number): Promise<number> => {
    const result = await db
      .deleteFrom("sessions")
      .where((eb) => eb.or([eb("expires_at", "<=", now), eb("last_seen_at", "<=", idleBefore)]))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  },
};
