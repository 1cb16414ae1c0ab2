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
