import { sql } from "kysely";
import type { Db } from "./db.ts";
import { deleteBatch, SWEEP_BATCH } from "./sweep.ts";

/** Queries of the DiscourseConnect nonces we answered (issue #13). */
export const discourseNoncesStore = {
  /**
   * Records a nonce as answered; false when it was answered already and is not expired. One insert that the primary
   * key settles, so two requests (or two nodes) racing with the same nonce answer it once. An expired row of the
   * same nonce is replaced first: its day has passed, and the forum itself refuses a nonce that old.
   */
  use: async (db: Db, nonceHash: string, now: number, expiresAt: number): Promise<boolean> => {
    await db
      .deleteFrom("discourse_nonces")
      .where("nonce_hash", "=", nonceHash)
      .where("expires_at", "<=", now)
      .execute();
    const result = await db
      .insertInto("discourse_nonces")
      .values({ nonce_hash: nonceHash, expires_at: expiresAt })
      .onConflict((oc) => oc.column("nonce_hash").doNothing())
      .executeTakeFirst();
    return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
  },

  /** At most `limit` expired nonces per call (issue #28: the sweeper calls again until fewer are left). */
  deleteExpired: (db: Db, now: number, limit = SWEEP_BATCH): Promise<number> =>
    deleteBatch(db, "discourse_nonces", sql`expires_at <= ${now}`, limit),
};
