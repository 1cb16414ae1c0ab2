import type { Db } from "./db.ts";
import type { PasskeyRow, WebauthnChallengeRow } from "./schema.ts";

/** Issue #26: WebAuthn credentials, and the pending ceremonies' challenges. */
export const passkeysStore = {
  listOf: (db: Db, userId: string): Promise<PasskeyRow[]> =>
    db.selectFrom("passkeys").selectAll().where("user_id", "=", userId).orderBy("created_at").execute(),

  find: (db: Db, id: string): Promise<PasskeyRow | undefined> =>
    db.selectFrom("passkeys").selectAll().where("id", "=", id).executeTakeFirst(),

  /** False when the credential is registered already (to this or another account). */
  insert: async (db: Db, row: Omit<PasskeyRow, "last_used_at">): Promise<boolean> => {
    const result = await db
      .insertInto("passkeys")
      .values({ ...row, last_used_at: null })
      .onConflict((oc) => oc.column("id").doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  },

  rename: async (db: Db, userId: string, id: string, name: string): Promise<PasskeyRow | undefined> => {
    const [row] = await db
      .updateTable("passkeys")
      .set({ name })
      .where("id", "=", id)
      .where("user_id", "=", userId)
      .returningAll()
      .execute();
    return row;
  },

  remove: async (db: Db, userId: string, id: string): Promise<boolean> => {
    const result = await db
      .deleteFrom("passkeys")
      .where("id", "=", id)
      .where("user_id", "=", userId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  },

  /**
   * Records a use in one statement, only if the signature counter moved forward (WebAuthn L3 §7.2 step 21): a new
   * counter above the stored one, or both zero (an authenticator that does not count). Two requests replaying one
   * assertion cannot both pass. False: refused.
   */
  recordUse: async (db: Db, id: string, counter: number, now: number): Promise<boolean> => {
    const result = await db
      .updateTable("passkeys")
      .set({ counter, last_used_at: now })
      .where("id", "=", id)
      .where("counter", counter === 0 ? "=" : "<", counter)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /** One pending ceremony per browser and purpose: a new one replaces the previous. */
  putChallenge: async (db: Db, row: WebauthnChallengeRow): Promise<void> => {
    await db
      .insertInto("webauthn_challenges")
      .values(row)
      .onConflict((oc) =>
        oc.column("id").doUpdateSet({
          challenge: row.challenge,
          purpose: row.purpose,
          user_id: row.user_id,
          rp_id: row.rp_id,
          expires_at: row.expires_at,
        }),
      )
      .execute();
  },

  /** Takes a challenge once (delete … returning): a second use of the same ceremony finds nothing. */
  takeChallenge: async (db: Db, id: string, now: number): Promise<WebauthnChallengeRow | undefined> => {
    const [row] = await db.deleteFrom("webauthn_challenges").where("id", "=", id).returningAll().execute();
    return row && row.expires_at > now ? row : undefined;
  },

  deleteExpiredChallenges: async (db: Db, now: number): Promise<void> => {
    await db.deleteFrom("webauthn_challenges").where("expires_at", "<=", now).execute();
  },
};
