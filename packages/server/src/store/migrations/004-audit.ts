import type { Kysely } from "kysely";

/** The audit trail of security events (issue #5; ASVS 16.x security logging). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("audit")
    .addColumn("id", "varchar(36)", (c) => c.primaryKey())
    .addColumn("at", "bigint", (c) => c.notNull())
    .addColumn("event", "varchar(40)", (c) => c.notNull())
    .addColumn("user_id", "varchar(36)")
    .addColumn("ip", "varchar(64)")
    .addColumn("user_agent", "varchar(512)")
    .addColumn("detail", "varchar(1000)")
    .execute();
  await db.schema.createIndex("audit_user").on("audit").columns(["user_id", "at"]).execute();
  await db.schema.createIndex("audit_at").on("audit").column("at").execute();
}
