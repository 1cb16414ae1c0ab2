import { sql } from "kysely";
import type { Db } from "./db.ts";
import type { SessionLinkRow } from "./schema.ts";
import { deleteBatch, SWEEP_BATCH } from "./sweep.ts";

/** Link codes that carry a session to another brand host (issue #10 §5). */
export const sessionLinksStore = {
  insert: async (db: Db, row: SessionLinkRow): Promise<void> => {
    await db.insertInto("session_links").values(row).execute();
  },

  /**
   * Takes a code once: the row is deleted as it is read, so of two redemptions racing on two nodes only one gets it
   * (ASVS 7.2.2-style single use, settled in the database); an expired one is refused, and swept later.
   */
  consume: async (db: Db, id: string, now: number): Promise<SessionLinkRow | undefined> => {
    const [row] = await db.deleteFrom("session_links").where("id", "=", id).returningAll().execute();
    return row && row.expires_at > now ? row : undefined;
  },

  /** At most `limit` expired links per call (issue #28: the sweeper calls again). */
  deleteExpired: (db: Db, now: number, limit = SWEEP_BATCH): Promise<number> =>
    deleteBatch(db, "session_links", sql`expires_at <= ${now}`, limit),
};
