import type { Kysely } from "kysely";

/**
 * When a newer link retires an older one, the older code is marked superseded rather than used, so its page can
 * say "replaced by a newer one" instead of "already used" (issue #8).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("codes").addColumn("superseded_at", "bigint").execute();
}
