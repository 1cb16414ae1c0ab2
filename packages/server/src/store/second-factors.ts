import { hash } from "node:crypto";
import { sql } from "kysely";
import type { Db } from "./db.ts";
import { deleteBatch, SWEEP_BATCH } from "./sweep.ts";

/** The key of an account's count of wrong second-factor codes (scope `second_factor` of login_throttle). */
export const codeFailuresKey = (userId: string): string => hash("sha256", `second-factor:${userId}`, "hex");

/** Queries of the authenticator apps, recovery codes and remembered browsers of issue #26 (factors/ decides). */
export const secondFactorsStore = {
  findTotp: (db: Db, userId: string) =>
    db.selectFrom("totp_factors").selectAll().where("user_id", "=", userId).executeTakeFirst(),

  /** (Re)writes an unconfirmed secret; a confirmed one is never replaced (answers false then). */
  putPendingTotp: async (db: Db, userId: string, sealed: string, now: number): Promise<boolean> => {
    const result = await db
      .insertInto("totp_factors")
      .values({ user_id: userId, secret_sealed: sealed, confirmed_at: null, last_step: 0, created_at: now })
      .onConflict((oc) =>
        oc
          .column("user_id")
          .doUpdateSet({ secret_sealed: sealed, last_step: 0, created_at: now })
          .where("totp_factors.confirmed_at", "is", null),
      )
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  },

  /**
   * Accepts a time step once: the row moves to `step` only if its last accepted step is earlier, in one statement,
   * so two requests with the same code (or an older one after a newer) never both pass. True: accepted.
   */
  acceptStep: async (db: Db, userId: string, step: number): Promise<boolean> => {
    const result = await db
      .updateTable("totp_factors")
      .set({ last_step: step })
      .where("user_id", "=", userId)
      .where("last_step", "<", step)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /** Confirms the pending secret (once: a second confirmation finds nothing to confirm). */
  /** Confirms the pending secret the code was checked against, and only that one (another "Turn on" replaced it). */
  confirmTotp: async (db: Db, userId: string, sealed: string, now: number): Promise<boolean> => {
    const result = await db
      .updateTable("totp_factors")
      .set({ confirmed_at: now })
      .where("user_id", "=", userId)
      .where("secret_sealed", "=", sealed)
      .where("confirmed_at", "is", null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /** Removes the authenticator app; true when there was a confirmed one. */
  deleteTotp: async (db: Db, userId: string): Promise<boolean> => {
    const rows = await db.deleteFrom("totp_factors").where("user_id", "=", userId).returning("confirmed_at").execute();
    return rows.some((row) => row.confirmed_at !== null);
  },

  /** Replaces the account's recovery codes by a new set (of hashes). */
  replaceRecoveryCodes: async (db: Db, userId: string, hashes: readonly string[], now: number): Promise<void> => {
    await db.deleteFrom("recovery_codes").where("user_id", "=", userId).execute();
    if (hashes.length === 0) return;
    await db
      .insertInto("recovery_codes")
      .values(hashes.map((code_hash) => ({ code_hash, user_id: userId, created_at: now, used_at: null })))
      .execute();
  },

  /** Spends one code: true for the one request whose update marked it used. */
  spendRecoveryCode: async (db: Db, userId: string, codeHash: string, now: number): Promise<boolean> => {
    const result = await db
      .updateTable("recovery_codes")
      .set({ used_at: now })
      .where("code_hash", "=", codeHash)
      .where("user_id", "=", userId)
      .where("used_at", "is", null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  recoveryCodesLeft: async (db: Db, userId: string): Promise<number> => {
    const row = await db
      .selectFrom("recovery_codes")
      .select((eb) => eb.fn.countAll<string | number>().as("n"))
      .where("user_id", "=", userId)
      .where("used_at", "is", null)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  },

  deleteRecoveryCodes: async (db: Db, userId: string): Promise<void> => {
    await db.deleteFrom("recovery_codes").where("user_id", "=", userId).execute();
  },

  /** Remembers a browser for an account's second factor until `expiresAt` (again: the later expiry). */
  rememberBrowser: async (db: Db, userId: string, deviceId: string, expiresAt: number): Promise<void> => {
    await db
      .insertInto("remembered_browsers")
      .values({ device_id: deviceId, user_id: userId, expires_at: expiresAt })
      .onConflict((oc) => oc.columns(["device_id", "user_id"]).doUpdateSet({ expires_at: expiresAt }))
      .execute();
  },

  isRemembered: async (db: Db, userId: string, deviceId: string, now: number): Promise<boolean> => {
    const row = await db
      .selectFrom("remembered_browsers")
      .select("device_id")
      .where("user_id", "=", userId)
      .where("device_id", "=", deviceId)
      .where("expires_at", ">", now)
      .executeTakeFirst();
    return row !== undefined;
  },

  forgetBrowsers: async (db: Db, userId: string): Promise<void> => {
    await db.deleteFrom("remembered_browsers").where("user_id", "=", userId).execute();
  },

  /** At most `limit` expired remembered browsers per call (issue #28: the sweeper calls again). */
  deleteExpiredBrowsers: (db: Db, now: number, limit = SWEEP_BATCH): Promise<number> =>
    deleteBatch(db, "remembered_browsers", sql`expires_at <= ${now}`, limit),

  /** The account's passkeys, as the security section lists them (b writes the rows). */
  passkeysOf: (db: Db, userId: string) =>
    db
      .selectFrom("passkeys")
      .select(["id", "name", "created_at", "last_used_at", "backed_up"])
      .where("user_id", "=", userId)
      .orderBy("created_at")
      .execute(),

  /** Every factor row of an account and its count of wrong codes (its deletion, an administrator's reset). */
  deleteAllOf: async (db: Db, userId: string): Promise<void> => {
    await db.deleteFrom("totp_factors").where("user_id", "=", userId).execute();
    await db.deleteFrom("recovery_codes").where("user_id", "=", userId).execute();
    await db.deleteFrom("passkeys").where("user_id", "=", userId).execute();
    await db.deleteFrom("remembered_browsers").where("user_id", "=", userId).execute();
    await db.deleteFrom("webauthn_challenges").where("user_id", "=", userId).execute();
    await db.deleteFrom("login_throttle").where("account_key", "=", codeFailuresKey(userId)).execute();
  },
};
