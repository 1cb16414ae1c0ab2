import type { Db } from "./db.ts";
import type { ExternalIdentityRow } from "./schema.ts";

/** Queries of the external identities table: (provider, subject) → account. Rows go with their account. */
export const externalIdentitiesStore = {
  /** Links an identity to an account; throws when the (provider, subject) pair is already linked. */
  insert: async (db: Db, row: ExternalIdentityRow): Promise<void> => {
    await db.insertInto("external_identities").values(row).execute();
  },

  find: (db: Db, provider: string, subject: string): Promise<ExternalIdentityRow | undefined> =>
    db
      .selectFrom("external_identities")
      .selectAll()
      .where("provider", "=", provider)
      .where("subject", "=", subject)
      .executeTakeFirst(),

  listForUser: (db: Db, userId: string): Promise<ExternalIdentityRow[]> =>
    db.selectFrom("external_identities").selectAll().where("user_id", "=", userId).orderBy("linked_at").execute(),

  /** The account's identity at a provider (an account links at most one a provider). */
  findForUser: (db: Db, userId: string, provider: string): Promise<ExternalIdentityRow | undefined> =>
    db
      .selectFrom("external_identities")
      .selectAll()
      .where("user_id", "=", userId)
      .where("provider", "=", provider)
      .executeTakeFirst(),

  /**
   * Removes the account's identity at a provider unless it is the last way to sign in (no password and no other
   * identity). The account's row is locked first, so two removals at once cannot each see the other's identity and
   * leave none (PostgreSQL row lock; SQLite runs one writer at a time).
   */
  deleteUnlessLast: (db: Db, userId: string, provider: string): Promise<"deleted" | "last" | "missing"> =>
    db.transaction().execute(async (trx) => {
      const user = await trx
        .updateTable("users")
        .set((eb) => ({ id: eb.ref("id") }))
        .where("id", "=", userId)
        .returning(["password_hash", "password_allowed"])
        .executeTakeFirst();
      const identities = await trx
        .selectFrom("external_identities")
        .select("provider")
        .where("user_id", "=", userId)
        .execute();
      if (!user || !identities.some((identity) => identity.provider === provider)) return "missing";
      const hasPassword = user.password_hash !== null && user.password_allowed === 1;
      if (!hasPassword && identities.length <= 1) return "last";
      await trx
        .deleteFrom("external_identities")
        .where("user_id", "=", userId)
        .where("provider", "=", provider)
        .execute();
      return "deleted";
    }),

  /** Removes every identity of an account (those linked while its address was unproven: accounts/activation.ts). */
  deleteAllForUser: async (db: Db, userId: string): Promise<void> => {
    await db.deleteFrom("external_identities").where("user_id", "=", userId).execute();
  },

  deleteForUser: async (db: Db, userId: string, provider: string): Promise<boolean> => {
    const result = await db
      .deleteFrom("external_identities")
      .where("user_id", "=", userId)
      .where("provider", "=", provider)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  },

  delete: async (db: Db, provider: string, subject: string): Promise<boolean> => {
    const result = await db
      .deleteFrom("external_identities")
      .where("provider", "=", provider)
      .where("subject", "=", subject)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  },
};
