import type { Db } from "./db.ts";
import type { OutboxRow } from "./schema.ts";

/** Queries of the mail outbox. */
export const outboxStore = {
  insert: async (db: Db, row: OutboxRow): Promise<void> => {
    await db.insertInto("outbox").values(row).execute();
  },

  /** Pending mail whose time has come and that no worker holds. */
  due: (db: Db, now: number, limit: number): Promise<OutboxRow[]> =>
    db
      .selectFrom("outbox")
      .selectAll()
      .where("status", "=", "pending")
      .where("next_attempt_at", "<=", now)
      .where((eb) => eb.or([eb("claimed_until", "is", null), eb("claimed_until", "<", now)]))
      .orderBy("next_attempt_at")
      .limit(limit)
      .execute(),

  /**
   * Takes a lease on one message, due at `now` (the time of claiming) and not held by anyone; true when this worker
   * got it. `until` is the lease, which `markSent`, `markRetry` and `deleteLeased` name (as jobs do, store/jobs.ts).
   */
  claim: async (db: Db, id: string, now: number, until: number, attempts?: number): Promise<boolean> => {
    let query = db
      .updateTable("outbox")
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
   * Marks a message delivered. `scrub` empties its bodies: they hold live links (reset, set-up, activation,
   * deletion), whose codes are otherwise only stored hashed, so delivered mail must not keep them readable.
   */
  markSent: async (db: Db, id: string, lease: number, at: number, scrub: boolean): Promise<boolean> => {
    const result = await db
      .updateTable("outbox")
      .set({ status: "sent", sent_at: at, claimed_until: null, ...(scrub ? { text_body: "", html_body: "" } : {}) })
      .where("id", "=", id)
      .where("claimed_until", "=", lease)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  },

  /** Forgets delivered or given-up mail after its retention period. */
  deleteFinishedBefore: async (db: Db, before: number): Promise<void> => {
    await db.deleteFrom("outbox").where("status", "in", ["sent", "failed"]).where("created_at", "<", before).execute();
  },

  /** Schedules the next try (or gives up), only while `lease` is still the message's lease (as `markSent`). */
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
      .updateTable("outbox")
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

  /** How many messages wait to be sent, and when the oldest of them was queued (null when none waits). */
  waiting: async (db: Db): Promise<{ count: number; oldestCreatedAt: number | null }> => {
    // Both read only the waiting rows, through the outbox_due index (status first).
    const row = await db
      .selectFrom("outbox")
      .select((eb) => [eb.fn.countAll<number | string>().as("count"), eb.fn.min("created_at").as("oldest")])
      .where("status", "=", "pending")
      .executeTakeFirstOrThrow();
    return { count: Number(row.count), oldestCreatedAt: row.oldest === null ? null : Number(row.oldest) };
  },

  list: (db: Db, limit: number, recipient?: string): Promise<OutboxRow[]> => {
    let query = db.selectFrom("outbox").selectAll().orderBy("created_at", "desc").limit(limit);
    if (recipient) query = query.where("recipient", "=", recipient);
    return query.execute();
  },

  delete: async (db: Db, id: string): Promise<void> => {
    await db.deleteFrom("outbox").where("id", "=", id).execute();
  },

  /** Deletes a delivered message while `lease` is still its lease (the farewell mail, erased once delivered). */
  deleteLeased: async (db: Db, id: string, lease: number): Promise<boolean> => {
    const result = await db
      .deleteFrom("outbox")
      .where("id", "=", id)
      .where("claimed_until", "=", lease)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  },

  findById: (db: Db, id: string): Promise<OutboxRow | undefined> =>
    db.selectFrom("outbox").selectAll().where("id", "=", id).executeTakeFirst(),
};
