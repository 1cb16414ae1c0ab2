import type { Db } from "./db.ts";
import type { AuditRow } from "./schema.ts";

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

  /** Keeps a deleted user's events for the statistics, without anything that points to the person. */
  anonymizeUser: async (db: Db, userId: string): Promise<void> => {
    await db
      .updateTable("audit")
      .set({ user_id: null, ip: null, user_agent: null, detail: null })
      .where("user_id", "=", userId)
      .execute();
  },
};
