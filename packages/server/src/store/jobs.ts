import type { Db } from "./db.ts";
import type { JobRow } from "./schema.ts";

/** Queries of the jobs table (issue #13): durable outbound calls, leased like the mail outbox (store/outbox.ts). */
export const jobsStore = {
  insert: async (db: Db, row: JobRow): Promise<void> => {
    await db.insertInto("jobs").values(row).execute();
  },

  /** Pending jobs whose time has come and that no worker holds. */
  due: (db: Db, now: number, limit: number): Promise<JobRow[]> =>
    db
      .selectFrom("jobs")
      .selectAll()
      .where("status", "=", "pending")
      .where("next_attempt_at", "<=", now)
      .where((eb) => eb.or([eb("claimed_until", "is", null), eb("claimed_until", "<", now)]))
      .orderBy("next_attempt_at")
      .limit(limit)
      .execute(),

  /** Takes a lease on one job; true when this worker got it (one conditional update: one winner). */
  claim: async (db: Db, id: string, now: number, until: number): Promise<boolean> => {
    const result = await db
      .updateTable("jobs")
      .set({ claimed_until: until })
      .where("id", "=", id)
      .where("status", "=", "pending")
      .where((eb) => eb.or([eb("claimed_until", "is", null), eb("claimed_until", "<", now)]))
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  },

  markDone: async (db: Db, id: string, at: number): Promise<void> => {
    await db
      .updateTable("jobs")
      .set({ status: "done", done_at: at, claimed_until: null })
      .where("id", "=", id)
      .execute();
  },

  markRetry: async (db: Db, id: string, attempts: number, next: number, error: string, failed: boolean) => {
    await db
      .updateTable("jobs")
      .set({
        attempts,
        next_attempt_at: next,
        last_error: error.slice(0, 500),
        claimed_until: null,
        status: failed ? "failed" : "pending",
      })
      .where("id", "=", id)
      .execute();
  },

  list: (db: Db, kind?: string): Promise<JobRow[]> => {
    let query = db.selectFrom("jobs").selectAll().orderBy("created_at");
    if (kind) query = query.where("kind", "=", kind);
    return query.execute();
  },

  /** Forgets finished jobs after their retention period. */
  deleteFinishedBefore: async (db: Db, before: number): Promise<void> => {
    await db.deleteFrom("jobs").where("status", "in", ["done", "failed"]).where("created_at", "<", before).execute();
  },
};
