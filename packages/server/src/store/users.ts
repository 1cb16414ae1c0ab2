import type { Db } from "./db.ts";
import type { NewUserRow, UserRow, UserUpdate } from "./schema.ts";

/** Queries of the users table. E-mail lookups go through the lower-cased column (case-insensitive unique). */
export const usersStore = {
  findByEmail: (db: Db, emailNormalized: string): Promise<UserRow | undefined> =>
    db.selectFrom("users").selectAll().where("email_normalized", "=", emailNormalized).executeTakeFirst(),

  findById: (db: Db, id: string): Promise<UserRow | undefined> =>
    db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst(),

  insert: async (db: Db, row: NewUserRow): Promise<void> => {
    await db.insertInto("users").values(row).execute();
  },

  update: async (db: Db, id: string, changes: UserUpdate): Promise<boolean> => {
    const result = await db.updateTable("users").set(changes).where("id", "=", id).executeTakeFirst();
    return result.numUpdatedRows > 0n;
  },

  /**
   * Holds the account's row until the transaction `db` ends, by a write that changes nothing (PostgreSQL locks the
   * row; SQLite takes its write lock): changes to an account's other rows that read before they write take turns.
   */
  lock: async (db: Db, id: string): Promise<void> => {
    await db
      .updateTable("users")
      .set((eb) => ({ updated_at: eb.ref("updated_at") }))
      .where("id", "=", id)
      .execute();
  },

  delete: async (db: Db, id: string): Promise<boolean> => {
    const result = await db.deleteFrom("users").where("id", "=", id).executeTakeFirst();
    return result.numDeletedRows > 0n;
  },
};
