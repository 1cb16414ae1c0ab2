import type { Kysely } from "kysely";

/** Per-client-address request counts of the authentication calls, shared by every instance (ASVS 2.2.1). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("rate_limits")
    .addColumn("key", "varchar(64)", (c) => c.primaryKey())
    .addColumn("hits", "integer", (c) => c.notNull())
    .addColumn("window_ends", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("rate_limits_window_ends").on("rate_limits").column("window_ends").execute();
}
