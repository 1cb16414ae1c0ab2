import { sql } from "kysely";
import type { Db } from "./db.ts";
import { deleteBatch, SWEEP_BATCH } from "./sweep.ts";

/** Queries of image captchas and spent bot-check tokens. */
export const captchasStore = {
  insert: async (db: Db, id: string, answerHash: string, expiresAt: number): Promise<void> => {
    await db.insertInto("captchas").values({ id, answer_hash: answerHash, expires_at: expiresAt }).execute();
  },

  /** Removes and returns a captcha: whatever the answer, it is never usable twice. */
  take: async (db: Db, id: string): Promise<{ answer_hash: string; expires_at: number } | undefined> => {
    const row = await db
      .selectFrom("captchas")
      .select(["answer_hash", "expires_at"])
      .where("id", "=", id)
      .executeTakeFirst();
    if (!row) return undefined;
    const result = await db.deleteFrom("captchas").where("id", "=", id).executeTakeFirst();
    return result.numDeletedRows > 0n ? row : undefined;
  },

  /** Records a token as spent; false when it already was (a replay). */
  spend: async (db: Db, tokenHash: string, expiresAt: number): Promise<boolean> => {
    const result = await db
      .insertInto("spent_tokens")
      .values({ token_hash: tokenHash, expires_at: expiresAt })
      .onConflict((oc) => oc.column("token_hash").doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
  },

  /** Whether a token is recorded as spent (and not yet swept). */
  isSpent: async (db: Db, tokenHash: string, now: number): Promise<boolean> => {
    const row = await db
      .selectFrom("spent_tokens")
      .select("token_hash")
      .where("token_hash", "=", tokenHash)
      .where("expires_at", ">=", now)
      .executeTakeFirst();
    return row !== undefined;
  },

  /** At most `limit` expired rows of each table per call (issue #28: the sweeper calls again). */
  deleteStale: async (db: Db, now: number, limit = SWEEP_BATCH): Promise<number> => {
    const captchas = await deleteBatch(db, "captchas", sql`expires_at < ${now}`, limit);
    const spent = await deleteBatch(db, "spent_tokens", sql`expires_at < ${now}`, limit);
    return Math.max(captchas, spent);
  },
};
