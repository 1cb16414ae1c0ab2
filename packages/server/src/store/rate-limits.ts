import { sql } from "kysely";
import type { Db } from "./db.ts";
import { deleteBatch, SWEEP_BATCH } from "./sweep.ts";

/** Queries of the per-client-address rate limits: fixed windows, counted in the database all instances share. */
export const rateLimitsStore = {
  /**
   * Counts one request in the key's current window, or opens a new window when the last one has ended, in one
   * atomic statement (both databases evaluate every SET expression against the row as it was).
   */
  hit: async (db: Db, key: string, now: number, windowMs: number): Promise<{ hits: number; windowEnds: number }> => {
    const row = await db
      .insertInto("rate_limits")
      .values({ key, hits: 1, window_ends: now + windowMs })
      .onConflict((oc) =>
        oc.column("key").doUpdateSet({
          hits: sql<number>`case when rate_limits.window_ends <= ${now} then 1 else rate_limits.hits + 1 end`,
          window_ends: sql<number>`case when rate_limits.window_ends <= ${now} then ${now + windowMs} else rate_limits.window_ends end`,
        }),
      )
      .returning(["hits", "window_ends"])
      .executeTakeFirstOrThrow();
    return { hits: Number(row.hits), windowEnds: Number(row.window_ends) };
  },

  /** At most `limit` ended windows per call (issue #28: the sweeper calls again). */
  deleteStale: (db: Db, now: number, limit = SWEEP_BATCH): Promise<number> =>
    deleteBatch(db, "rate_limits", sql`window_ends <= ${now}`, limit),
};
