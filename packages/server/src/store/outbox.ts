import type { Db } from "./db.ts";
import type { OutboxRow } from "./schema.ts";

/**
 * What `claimed_until` holds on every message since issue #28 (migration 018): held for good, so that a node of an
 * earlier release, during a rolling upgrade, never sends a message the queue's "mail" job sends.
 */
export const OUTBOX_HELD_BY_QUEUE = Number.MAX_SAFE_INTEGER;

/** Queries of the mail outbox: the messages themselves; their sending is a "mail" job of the queue (issue #28). */
export const outboxStore = {
  insert: async (db: Db, row: OutboxRow): Promise<void> => {
    await db.insertInto("outbox").values(row).execute();
  },

  /**
   * Marks a message delivered (its job, jobs/worker.ts, is finished in the same transaction, under its lease).
   * `scrub` empties its bodies: they hold live links (reset, set-up, activation, deletion), whose codes are otherwise
   * only stored hashed, so delivered mail must not keep them readable.
   */
  markSent: async (db: Db, id: string, at: number, scrub: boolean): Promise<void> => {
    await db
      .updateTable("outbox")
      .set({ status: "sent", sent_at: at, ...(scrub ? { text_body: "", html_body: "" } : {}) })
      .where("id", "=", id)
      .execute();
  },

  /** Forgets delivered or given-up mail after its retention period. */
  deleteFinishedBefore: async (db: Db, before: number): Promise<void> => {
    await db.deleteFrom("outbox").where("status", "in", ["sent", "failed"]).where("created_at", "<", before).execute();
  },

  /** Records a failed try on the message, for the admin command line (its job holds the schedule). */
  markRetry: async (
    db: Db,
    id: string,
    outcome: { attempts: number; next: number; error: string; gaveUp: boolean },
  ): Promise<void> => {
    await db
      .updateTable("outbox")
      .set({
        attempts: outcome.attempts,
        next_attempt_at: outcome.next,
        last_error: outcome.error.slice(0, 500),
        status: outcome.gaveUp ? "failed" : "pending",
      })
      .where("id", "=", id)
      .execute();
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

  findById: (db: Db, id: string): Promise<OutboxRow | undefined> =>
    db.selectFrom("outbox").selectAll().where("id", "=", id).executeTakeFirst(),
};
