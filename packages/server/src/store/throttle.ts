import type { Db } from "./db.ts";
import type { ThrottleRow } from "./schema.ts";

/** Queries of the sign-in throttle, keyed by a hash of the identifier someone tried to sign in as. */
export const throttleStore = {
  find: (db: Db, key: string): Promise<ThrottleRow | undefined> =>
    db.selectFrom("login_throttle").selectAll().where("key", "=", key).executeTakeFirst(),

  /** Adds one failure atomically and returns the new row. */
  recordFailure: async (db: Db, key: string, now: number): Promise<ThrottleRow> =>
    db
      .insertInto("login_throttle")
      .values({ key, failures: 1, locked_until: null, updated_at: now })
      .onConflict((oc) =>
        oc.column("key").doUpdateSet((eb) => ({ failures: eb("login_throttle.failures", "+", 1), updated_at: now })),
      )
      .returningAll()
      .executeTakeFirstOrThrow(),

  lock: async (db: Db, key: string, until: number, now: number): Promise<void> => {
    await db
      .updateTable("login_throttle")
      .set({ locked_until: until, updated_at: now })
      .where("key", "=", key)
      .execute();
  },

  clear: async (db: Db, key: string): Promise<void> => {
    await db.deleteFrom("login_throttle").where("key", "=", key).execute();
  },

  deleteStale: async (db: Db, before: number): Promise<number> => {
    const result = await db.deleteFrom("login_throttle").where("updated_at", "<", before).executeTakeFirst();
    return Number(result.numDeletedRows);
  },
};
