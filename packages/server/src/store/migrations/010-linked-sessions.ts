import { type Kysely, sql } from "kysely";

/**
 * Issue #10 §5, linked sessions across brand hosts. Sessions of one sign-in share `sign_in_id` (signing out of one
 * ends them all); `linked` says the sign-in has reached the central host. A link code carries a session to another
 * host: stored by hash, bound to the receiving origin and the receiver's state, used once, short-lived.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("sessions").addColumn("sign_in_id", "varchar(64)").execute();
  await db.schema
    .alterTable("sessions")
    .addColumn("linked", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  // A session opened before this migration is a sign-in of its own.
  await sql`update sessions set sign_in_id = id where sign_in_id is null`.execute(db);
  await db.schema
    .createIndex("sessions_sign_in_id")
    .on("sessions")
    .column("sign_in_id")
    .where(sql.ref("sign_in_id"), "is not", null)
    .execute();

  await db.schema
    .createTable("session_links")
    /** SHA-256 of the code in the URL. */
    .addColumn("id", "varchar(64)", (c) => c.primaryKey())
    /** The giving host's session (ids of `sessions`, unconstrained: the code fails if it is gone). */
    .addColumn("session_id", "varchar(64)", (c) => c.notNull())
    /** The origin that may redeem it, from the brands file. */
    .addColumn("origin", "varchar(255)", (c) => c.notNull())
    /** SHA-256 of the state the receiving host holds in its cookie. */
    .addColumn("state_hash", "varchar(64)", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("session_links_expires_at").on("session_links").column("expires_at").execute();
}
