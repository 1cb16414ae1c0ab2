import type { OwedStep } from "@gatehouse/contract";
import { sql } from "kysely";
import type { Db } from "./db.ts";
import type { SignInAttemptRow } from "./schema.ts";
import { deleteBatch, SWEEP_BATCH } from "./sweep.ts";

/** Sign-in attempts that owe a step (issue #24), one per browser. */
export const signInAttemptsStore = {
  /** A browser's new attempt replaces the one it had: the latest proof is the one the person acts on. */
  put: async (db: Db, row: SignInAttemptRow): Promise<void> => {
    const { id: _, ...rest } = row;
    await db
      .insertInto("sign_in_attempts")
      .values(row)
      .onConflict((oc) => oc.column("id").doUpdateSet(rest))
      .execute();
  },

  /** The attempt while it lives and its account is active (one disabled meanwhile continues nothing). */
  find: async (db: Db, id: string, now: number): Promise<SignInAttemptRow | undefined> => {
    const row = await db
      .selectFrom("sign_in_attempts")
      .innerJoin("users", "users.id", "sign_in_attempts.user_id")
      .selectAll("sign_in_attempts")
      .where("sign_in_attempts.id", "=", id)
      .where("users.status", "=", "active")
      .executeTakeFirst();
    return row && row.expires_at > now ? row : undefined;
  },

  /**
   * Moves the attempt from the step it owed to the next one, only if it still owes `done` (two tabs finishing the
   * same step: one moves it on); false otherwise.
   */
  advance: async (db: Db, id: string, done: OwedStep, next: OwedStep, amr?: string): Promise<boolean> => {
    const result = await db
      .updateTable("sign_in_attempts")
      .set(amr === undefined ? { owes: next } : { owes: next, amr })
      .where("id", "=", id)
      .where("owes", "=", done)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /** Takes the attempt once, if it owes `done`: the one request that finishes it opens the session. */
  take: async (db: Db, id: string, done: OwedStep, now: number): Promise<SignInAttemptRow | undefined> => {
    const [row] = await db
      .deleteFrom("sign_in_attempts")
      .where("id", "=", id)
      .where("owes", "=", done)
      .returningAll()
      .execute();
    return row && row.expires_at > now ? row : undefined;
  },

  delete: async (db: Db, id: string): Promise<void> => {
    await db.deleteFrom("sign_in_attempts").where("id", "=", id).execute();
  },

  /** An account's attempts end with its sessions (a password reset, disabling, deletion). */
  deleteForUser: async (db: Db, userId: string): Promise<void> => {
    await db.deleteFrom("sign_in_attempts").where("user_id", "=", userId).execute();
  },

  /** At most `limit` expired attempts per call (issue #28: the sweeper calls again). */
  deleteExpired: (db: Db, now: number, limit = SWEEP_BATCH): Promise<number> =>
    deleteBatch(db, "sign_in_attempts", sql`expires_at <= ${now}`, limit),
};
