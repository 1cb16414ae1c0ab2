import type { Kysely } from "kysely";

/**
 * Issue #27, the person's activity list: their audit events newest first, `(at, id)` descending (two events of one
 * millisecond keep one order, so the cursor skips and repeats none). `(user_id, at, id)` serves that order and the
 * cursor's range straight from the index; it also serves everything `audit_user (user_id, at)` served (the admin
 * command line's `audit --email`, the anonymising of a deleted account), so that index goes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex("audit_user_at_id").on("audit").columns(["user_id", "at", "id"]).execute();
  await db.schema.dropIndex("audit_user").execute();
}
