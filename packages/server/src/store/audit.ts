import { sql } from "kysely";
import type { Db } from "./db.ts";
import type { AuditRow } from "./schema.ts";
import { deleteBatch, SWEEP_BATCH } from "./sweep.ts";

/** Queries of the audit trail. */
export const auditStore = {
  insert: async (db: Db, row: AuditRow): Promise<void> => {
    await db.insertInto("audit").values(row).execute();
  },

  list: (db: Db, limit: number, userId?: string): Promise<AuditRow[]> => {
    let query = db.selectFrom("audit").selectAll().orderBy("at", "desc").limit(limit);
    if (userId) query = query.where("user_id", "=", userId);
    return query.execute();
  },

  /**
   * Issue #27: a page of one person's events of these kinds, newest first by (at, id), after a cursor's event
   * (index audit_user_at_id: the person's range read backwards, no sort).
   */
  pageOfUser: (
    db: Db,
    userId: string,
    events: readonly string[],
    after: { at: number; id: string } | undefined,
    limit: number,
  ): Promise<Pick<AuditRow, "id" | "at" | "event" | "user_agent" | "detail" | "country">[]> => {
    let query = db
      .selectFrom("audit")
      .select(["id", "at", "event", "user_agent", "detail", "country"])
      .where("user_id", "=", userId)
      .where("event", "in", events);
    if (after) {
      // `at <= …` is implied by the pair, and said so that both databases start the index's range at the cursor
      // (an `or` alone makes PostgreSQL read the person's events from the newest, a deep page being slow).
      query = query
        .where("at", "<=", after.at)
        .where((eb) => eb.or([eb("at", "<", after.at), eb.and([eb("at", "=", after.at), eb("id", "<", after.id)])]));
    }
    return query.orderBy("at", "desc").orderBy("id", "desc").limit(limit).execute();
  },

  /** Issue #28: at most `limit` events older than `before` per call (AUDIT_RETENTION_DAYS; the sweeper calls again). */
  deleteOlderThan: (db: Db, before: number, limit = SWEEP_BATCH): Promise<number> =>
    deleteBatch(db, "audit", sql`at < ${before}`, limit),

  /** Keeps a deleted user's events for the statistics, without anything that points to the person. */
  anonymizeUser: async (db: Db, userId: string): Promise<void> => {
    await db
      .updateTable("audit")
      .set({ user_id: null, ip: null, user_agent: null, detail: null })
      .where("user_id", "=", userId)
      .execute();
  },
};
