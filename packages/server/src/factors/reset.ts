import { revokeOfflineGrants } from "../accounts/access-lost.ts";
import { audit } from "../audit/audit.ts";
import type { MailSite } from "../mail/links.ts";
import type { Db } from "../store/db.ts";
import type { UserRow } from "../store/schema.ts";
import { secondFactorsStore } from "../store/second-factors.ts";
import { notifyFactorChange } from "./notify.ts";

/** An account's second factors in detail, for the admin command line (issue #26: `factors:list`). */
export interface FactorDetails {
  /** When the authenticator app was confirmed; null when the account has none (or one never confirmed). */
  totpSince: number | null;
  passkeys: { name: string; createdAt: number; lastUsedAt: number | null }[];
  recoveryCodesLeft: number;
  /** Browsers that skip the second factor ("Remember this browser") and have not expired. */
  rememberedBrowsers: number;
}

export async function factorDetails(db: Db, userId: string, now = Date.now()): Promise<FactorDetails> {
  const [totp, passkeys, codes, browsers] = await Promise.all([
    db
      .selectFrom("totp_factors")
      .select("confirmed_at")
      .where("user_id", "=", userId)
      .where("confirmed_at", "is not", null)
      .executeTakeFirst(),
    db
      .selectFrom("passkeys")
      .select(["name", "created_at", "last_used_at"])
      .where("user_id", "=", userId)
      .orderBy("created_at")
      .execute(),
    db
      .selectFrom("recovery_codes")
      .select((eb) => eb.fn.countAll<string | number>().as("n"))
      .where("user_id", "=", userId)
      .where("used_at", "is", null)
      .executeTakeFirst(),
    db
      .selectFrom("remembered_browsers")
      .select((eb) => eb.fn.countAll<string | number>().as("n"))
      .where("user_id", "=", userId)
      .where("expires_at", ">", now)
      .executeTakeFirst(),
  ]);
  return {
    totpSince: totp?.confirmed_at === undefined || totp.confirmed_at === null ? null : Number(totp.confirmed_at),
    passkeys: passkeys.map((p) => ({
      name: p.name,
      createdAt: Number(p.created_at),
      lastUsedAt: p.last_used_at === null ? null : Number(p.last_used_at),
    })),
    recoveryCodesLeft: Number(codes?.n ?? 0),
    rememberedBrowsers: Number(browsers?.n ?? 0),
  };
}

/** What a reset removed, for the administrator's message. */
export interface FactorsReset {
  totp: number;
  passkeys: number;
  recoveryCodes: number;
  rememberedBrowsers: number;
}

/**
 * Issue #26, the admin's reset for a person who lost every factor: the authenticator app, passkeys, recovery codes,
 * pending WebAuthn ceremonies and remembered browsers go in one transaction with the audit event and the mail that
 * tells the person (ASVS 6.3.7: a change of authentication factors is notified), so the next sign-in asks only for
 * the password (or provider). Sessions stay: the person proved who they were to open them, and a support desk
 * resets factors for someone locked out, who has none open (docs/decisions.md).
 */
export async function resetFactors(db: Db, user: UserRow, site: MailSite, now = Date.now()): Promise<FactorsReset> {
  const userId = user.id;
  return db.transaction().execute(async (trx) => {
    const before = await factorDetails(trx, userId, now);
    const removed = {
      totp: before.totpSince === null ? 0 : 1,
      passkeys: before.passkeys.length,
      recoveryCodes: before.recoveryCodesLeft,
      rememberedBrowsers: before.rememberedBrowsers,
    };
    // Factors, recovery codes, remembered browsers, pending ceremonies and the count of wrong codes: all of it.
    await secondFactorsStore.deleteAllOf(trx, userId);
    // Issue #27: whoever lost the factors may not be the only one holding the account: the apps that stay signed in
    // without a session lose their access.
    await revokeOfflineGrants(trx, userId, now);
    const detail = `totp ${removed.totp}, passkeys ${removed.passkeys}, recovery codes ${removed.recoveryCodes}, browsers ${removed.rememberedBrowsers}`;
    // ASVS 16.3.x: a change of authentication factors is a security event, recorded with what it removed.
    await audit(trx, "second_factors_reset", { userId, detail, userAgent: "admin-cli" }, now);
    await notifyFactorChange(trx, user, { kind: "reset" }, site, now);
    return removed;
  });
}
