import type { Kysely } from "kysely";

/** The set-up survey's answers of invited users (spec §3 Setup password). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("users").addColumn("marketing_info", "text").execute();
}
