import type { Db } from "./db.ts";
import type { JobRow } from "./schema.ts";

/**
 * Queries of the one durable queue (issue #28; issue #13's jobs table): mail (kind "mail", its message in the
 * outbox) and every other outbound call. A claim takes a lease with a random token; renewals and the finish name the
 * token, so only the claim's holder extends or finishes a job, however often it renewed.
 */
export const jobsStore = {
  insert: async (db: Db, row: JobRow): Promise<void> => {
    await db.insertInto("jobs").values(row).execute();
  },

  /** Pending jobs of these kinds whose time has come and that no worker holds. */
  due: (db: Db, now: number, limit: number, kinds?: readonly string[]): Promise<JobRow[]> => {
    let query = db
      .selectFrom("jobs")
      .selectAll()
      .where("status", "=", "pending")
      .where("next_attempt_at", "<=", now)
      .where((eb) => eb.or([eb("claimed_until", "is", null), eb("claimed_until", "<", now)]));
    // Only the kinds this node runs: kinds it cannot run (the forum, not configured here) never fill its batch.
    if (kinds) query = query.where("kind", "in", kinds.length > 0 ? kinds : [""]);
    return query.orderBy("next_attempt_at").limit(limit).execute();
  },

  /**
   * Takes a lease on one job, due at `now` (the time of claiming, not of the batch's read) and not held by anyone;
   * true when this worker got it (one conditional update: one winner). `token` (new for every claim) is what
   * `renew`, `markDone` and `markRetry` name, so only this claim's holder extends or finishes the job.
   */
  claim: async (db: Db, id: string, now: number, until: number, token: string, attempts?: number): Promise<boolean> => {
    let query = db
      .updateTable("jobs")
      .set({ claimed_until: until, lease_token: token })
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
   * The heartbeat: moves the lease to `until` while `token` still holds the job. False when another worker has
   * claimed it since (this one's lease lapsed), or it is finished: the holder stops renewing.
   */
  renew: async (db: Db, id: string, token: string, until: number): Promise<boolean> => {
    const result = await db
      .updateTable("jobs")
      .set({ claimed_until: until })
      .where("id", "=", id)
      .where("lease_token", "=", token)
      .where("status", "=", "pending")
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  },

  /**
   * Marks a job done, only while `token` is still its lease: a worker whose lease ran out and was taken over never
   * touches the job again. True when it did.
   */
  markDone: async (db: Db, id: string, at: number, token: string): Promise<boolean> => {
    const result = await db
      .updateTable("jobs")
      .set({ status: "done", done_at: at, claimed_until: null, lease_token: null })
      .where("id", "=", id)
      .where("lease_token", "=", token)
      .where("status", "=", "pending")
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  },

  /** Schedules the next try (or gives up), only while `token` is still the job's lease (as `markDone`). */
  markRetry: async (
    db: Db,
    id: string,
    token: string,
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
        lease_token: null,
        status: failed ? "failed" : "pending",
      })
      .where("id", "=", id)
      .where("lease_token", "=", token)
      .where("status", "=", "pending")
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  },

  list: (db: Db, kind?: string): Promise<JobRow[]> => {
    let query = db.selectFrom("jobs").selectAll().orderBy("created_at");
    if (kind) query = query.where("kind", "=", kind);
    return query.execute();
  },

  findById: (db: Db, id: string): Promise<JobRow | undefined> =>
    db.selectFrom("jobs").selectAll().where("id", "=", id).executeTakeFirst(),

  /** Forgets finished jobs after their retention period. */
  deleteFinishedBefore: async (db: Db, before: number): Promise<void> => {
    await db.deleteFrom("jobs").where("status", "in", ["done", "failed"]).where("created_at", "<", before).execute();
  },
};
