import { sql } from "kysely";
import type { Db } from "./db.ts";
import { deleteBatch, SWEEP_BATCH } from "./sweep.ts";

/** Queries of the recovery-mail quota: mails per address in fixed windows, in a key space of their own. */
export const recoveryQuotaStore = {
  /**
   * Counts one mail in the address's current window, or opens a new window when the last one has ended, in one
   * atomic statement; returns the number of mails in the window, this one included.
   */
  count: async (db: Db, key: string, now: number, windowMs: number): Promise<number> => {
    const row = await db
      .insertInto("recovery_quota")
      .values({ key, mails: 1, window_ends: now + windowMs })
      .onConflict((oc) =>
        oc.column("key").doUpdateSet({
          mails: sql<number>`case when recovery_quota.window_ends <= ${now} then 1 else recovery_quota.mails + 1 end`,
          window_ends: sql<number>`case when recovery_quota.window_ends <= ${now} then ${now + windowMs} else recovery_quota.window_ends end`,
        }),
      )
      .returning("mails")
      .executeTakeFirstOrThrow();
    return Number(row.mails);
  },

  clear: async (db: Db, key: string): Promise<void> => {
    await db.deleteFrom("recovery_quota").where("key", "=", key).execute();
  },

  /** At most `limit` ended windows per call (issue #28: the sweeper calls again). */
  deleteEnded: (db: Db, now: number, limit = SWEEP_BATCH): Promise<number> =>
    deleteBatch(db, "recovery_quota", sql`window_ends <= ${now}`, limit),
};
