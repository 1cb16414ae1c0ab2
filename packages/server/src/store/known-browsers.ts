import type { Db } from "./db.ts";

/** Issue #27: the browsers (device ids of the device cookie) an account has finished a sign-in in. */
export const knownBrowsersStore = {
  /**
   * Adds the browser; true only for the one statement that added it (a browser already known, or added by a
   * concurrent sign-in a moment ago, answers false): the insert decides who mails.
   */
  learn: async (db: Db, userId: string, deviceId: string, now: number): Promise<boolean> => {
    const result = await db
      .insertInto("known_browsers")
      .values({ user_id: userId, device_id: deviceId, first_seen_at: now })
      .onConflict((oc) => oc.columns(["user_id", "device_id"]).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
  },

  /** Whether the account knew a browser other than this one. */
  knowsOtherThan: async (db: Db, userId: string, deviceId: string): Promise<boolean> => {
    const row = await db
      .selectFrom("known_browsers")
      .select("device_id")
      .where("user_id", "=", userId)
      .where("device_id", "<>", deviceId)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  },

  /** How many browsers the account learnt since `since` (the primary key's user_id leads; a person has few). */
  countLearntSince: async (db: Db, userId: string, since: number): Promise<number> => {
    const row = await db
      .selectFrom("known_browsers")
      .select((eb) => eb.fn.countAll<number | string>().as("count"))
      .where("user_id", "=", userId)
      .where("first_seen_at", ">", since)
      .executeTakeFirst();
    return Number(row?.count ?? 0);
  },

  deleteAllOf: async (db: Db, userId: string): Promise<void> => {
    await db.deleteFrom("known_browsers").where("user_id", "=", userId).execute();
  },
};
