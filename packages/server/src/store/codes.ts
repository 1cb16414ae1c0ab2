import { sql } from "kysely";
import type { Db } from "./db.ts";
import type { CodePurpose, CodeRow } from "./schema.ts";
import { deleteBatch, SWEEP_BATCH } from "./sweep.ts";

/** Queries of the one-time codes table. */
export const codesStore = {
  insert: async (db: Db, row: CodeRow): Promise<void> => {
    await db.insertInto("codes").values(row).execute();
  },

  findByHash: (db: Db, codeHash: string): Promise<CodeRow | undefined> =>
    db.selectFrom("codes").selectAll().where("code_hash", "=", codeHash).executeTakeFirst(),

  /**
   * Marks the code used if nobody used or retired it first; true when this call won (single use under
   * concurrency, also against a newer link being issued at the same moment).
   */
  markUsed: async (db: Db, id: string, at: number): Promise<boolean> => {
    const result = await db
      .updateTable("codes")
      .set({ used_at: at })
      .where("id", "=", id)
      .where("used_at", "is", null)
      .where("superseded_at", "is", null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  },

  /**
   * Retires a user's open codes of a purpose, so only the newest link works. They are marked superseded, not
   * used, so their pages can say a newer link replaced them.
   */
  retireOpen: async (db: Db, userId: string, purpose: CodePurpose, at: number): Promise<void> => {
    await db
      .updateTable("codes")
      .set({ superseded_at: at })
      .where("user_id", "=", userId)
      .where("purpose", "=", purpose)
      .where("used_at", "is", null)
      .where("superseded_at", "is", null)
      .execute();
  },

  /** At most `limit` codes expired before `before` per call (issue #28: the sweeper calls again). */
  deleteStale: (db: Db, before: number, limit = SWEEP_BATCH): Promise<number> =>
    deleteBatch(db, "codes", sql`expires_at < ${before}`, limit),
};
