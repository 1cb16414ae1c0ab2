import { TRIALS_PER_ACCOUNT_MAX } from "@gatehouse/contract";
import type { Db } from "./db.ts";
import type { TrialRow } from "./schema.ts";

export type TrialStart = { outcome: "started" | "existing"; trial: TrialRow } | { outcome: "limit" };

/** Queries of the trials table (issue #12): one row an account and product. */
export const trialsStore = {
  /**
   * Starts a product's trial for an account unless it has one; settled in the database. The account's row is locked
   * first, so two starts at once cannot both pass the cap (PostgreSQL row lock; SQLite runs one writer at a time),
   * and the primary key keeps one row a product whichever start wins.
   */
  start: (db: Db, row: TrialRow): Promise<TrialStart> =>
    db.transaction().execute(async (trx): Promise<TrialStart> => {
      await trx
        .updateTable("users")
        .set((eb) => ({ id: eb.ref("id") }))
        .where("id", "=", row.user_id)
        .execute();
      const existing = await trx
        .selectFrom("trials")
        .selectAll()
        .where("user_id", "=", row.user_id)
        .where("product_code", "=", row.product_code)
        .executeTakeFirst();
      if (existing) return { outcome: "existing", trial: existing };
      const { count } = await trx
        .selectFrom("trials")
        .select((eb) => eb.fn.countAll<number | string>().as("count"))
        .where("user_id", "=", row.user_id)
        .executeTakeFirstOrThrow();
      if (Number(count) >= TRIALS_PER_ACCOUNT_MAX) return { outcome: "limit" };
      await trx.insertInto("trials").values(row).execute();
      return { outcome: "started", trial: row };
    }),

  listForUser: (db: Db, userId: string): Promise<TrialRow[]> =>
    db.selectFrom("trials").selectAll().where("user_id", "=", userId).orderBy("started_at").execute(),

  /** Every trial with its account's address, newest first, for the admin command line. */
  list: (db: Db, filter: { email?: string; productCode?: string; limit: number }) => {
    let query = db
      .selectFrom("trials")
      .innerJoin("users", "users.id", "trials.user_id")
      .select(["users.email", "trials.product_code", "trials.brand", "trials.started_at"]);
    if (filter.email) query = query.where("users.email", "=", filter.email);
    if (filter.productCode) query = query.where("trials.product_code", "=", filter.productCode);
    return query.orderBy("trials.started_at", "desc").limit(filter.limit).execute();
  },
};
