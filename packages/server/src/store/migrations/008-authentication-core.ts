import { type Kysely, sql } from "kysely";

/**
 * Issue #10 §1. Sessions record how and when the person signed in (`auth_time`, method, identity provider) and the
 * step they still owe; external identities map a provider's subject to an account, for federation.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("sessions")
    .addColumn("auth_time", "bigint", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable("sessions")
    .addColumn("auth_method", "varchar(16)", (c) => c.notNull().defaultTo("password"))
    .execute();
  await db.schema.alterTable("sessions").addColumn("idp", "varchar(64)").execute();
  await db.schema.alterTable("sessions").addColumn("pending_step", "varchar(24)").execute();
  // Sessions opened before this migration signed in when they were opened.
  await sql`update sessions set auth_time = created_at`.execute(db);

  await db.schema
    .createTable("external_identities")
    .addColumn("provider", "varchar(64)", (c) => c.notNull())
    .addColumn("subject", "varchar(255)", (c) => c.notNull())
    .addColumn("user_id", "varchar(36)", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("email", "varchar(254)")
    .addColumn("linked_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("external_identities_pk", ["provider", "subject"])
    .execute();
  await db.schema.createIndex("external_identities_user_id").on("external_identities").column("user_id").execute();
}
