import type { Kysely } from "kysely";

/**
 * Issue #12, trials. A trial is a record: whose, which product, on which brand's site, when it started. An account
 * starts each product's trial once (the unique pair); the rows go with their account.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("trials")
    .addColumn("user_id", "varchar(36)", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("product_code", "varchar(64)", (c) => c.notNull())
    .addColumn("brand", "varchar(32)", (c) => c.notNull())
    .addColumn("started_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("trials_pk", ["user_id", "product_code"])
    .execute();
  await db.schema.createIndex("trials_started_at").on("trials").column("started_at").execute();
}
