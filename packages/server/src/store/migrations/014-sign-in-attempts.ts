import { type Kysely, sql } from "kysely";

/**
 * Issue #24, the sign-in core. A sign-in whose proof is given but that still owes a step (a required password
 * change, the profile; a second factor later) is a sign-in attempt, held by the server for the browser that made
 * it; only a finished attempt opens a session. Sessions record the attempt's `amr` (RFC 8176).
 *
 * Sessions that owed a step under the old rule (`pending_step`) end here: their people sign in again, and that
 * sign-in owes the step as an attempt. The column stays, unused, for nodes of the previous version during a rolling
 * upgrade (docs/operations.md).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("sign_in_attempts")
    /** SHA-256 of the browser's cookie token it is bound to (never the token itself). */
    .addColumn("id", "varchar(64)", (c) => c.primaryKey())
    .addColumn("user_id", "varchar(36)", (c) => c.notNull())
    /** How the person proved who they are: a method of SIGN_IN_METHODS, its provider, and the RFC 8176 values. */
    .addColumn("method", "varchar(24)", (c) => c.notNull())
    .addColumn("idp", "varchar(64)")
    .addColumn("amr", "varchar(64)", (c) => c.notNull())
    /** When the first proof was given: the session's auth_time once the attempt finishes. */
    .addColumn("auth_time", "bigint", (c) => c.notNull())
    /** The step owed now (OWED_STEPS). */
    .addColumn("owes", "varchar(24)", (c) => c.notNull())
    /** JSON of where the sign-in goes once finished: the return address and the host's landing page. */
    .addColumn("destination", "text", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("sign_in_attempts_expires_at").on("sign_in_attempts").column("expires_at").execute();
  await db.schema.alterTable("sessions").addColumn("amr", "varchar(64)").execute();
  await sql`delete from sessions where pending_step is not null`.execute(db);
}
