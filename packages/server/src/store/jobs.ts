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

  /**
   * Takes a lease on one job, due at `now` (the time of claiming, not of the batch's read) and not held by anyone;
   * true when this worker got it (one conditional update: one winner). `until` is the lease: `markDone` and
   * `markRetry` name it, so only its holder finishes the job. A new lease is always later than a lapsed one.
   */
  claim: async (db: Db, id: string, now: number, until: number, attempts?: number): Promise<boolean> => {
    let query = db
      .updateTable("jobs")
      .set({ claimed_until: until })
      .where("id", "=", id)
      .where("status", "=", "pending")
      .where("next_attempt_at", "<=", now)
      .where((eb) => eb.or([eb("claimed_until", "is", null), eb("claimed_until", "<", now)]));
    // The row the worker read is still the one it claims (no other worker tried it meanwhile).
    if (attempts !== undefined) query = query.where("attempts", "=", attempts);
    const result = await query.executeTakeFirst();
    return result.numUpdatedRows > 0n;
  },

  /**
   * Marks a job done, only while `lease` (the `claimed_until` the worker's claim set) is still its lease: a worker
   * whose lease ran out and was taken over never touches the job again. True when it did.
   */
  markDone: async (db: Db, id: string, at: number, lease: number): Promise<boolean> => {
    const result = await db
      .updateTable("jobs")
      .set({ status: "done", done_at: at, claimed_until: null })
      .where("id", "=", id)
      .where("claimed_until", "=", lease)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  },

  /** Schedules the next try (or gives up), only while `lease` is still the job's lease (as `markDone`). */
  markRetry: async (
    db: Db,
    id: string,
    lease: number,
    attempts: number,
    next: number,
    error: string,
    failed: boolean,
  ): Promise<boolean> => {
    const result = await db
      .updateTable("jobs")
      .set({
        attempts,
        next_attempt_at: next,
        last_error: error.slice(0, 500),
        claimed_until: null,
        status: failed ? "failed" : "pending",
      })
      .where("id", "=", id)
      .where("claimed_until", "=", lease)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
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
