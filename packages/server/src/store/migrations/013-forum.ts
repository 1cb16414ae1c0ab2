import { type Kysely, sql } from "kysely";

/**
 * Issue #13, the forum bridge (DiscourseConnect).
 * - `users.email_verified`: has the person proven the address (an activation, reset or set-up link, or a provider
 *   that vouches for it)? The forum gets an unproven address only with `require_activation=true`, and the OpenID
 *   Connect claim `email_verified` says the same. Accounts that are not pending were activated (by a mailed code,
 *   issue #3) or vouched for when they were made, so they start proven; pending ones do not.
 * - `discourse_nonces`: every DiscourseConnect nonce we answered, by its SHA-256, kept a day (Discourse refuses a
 *   used nonce for 24 hours): the primary key makes the insert the one atomic check, so two nodes answer it once.
 * - `jobs`: durable outbound calls other than mail (the forum's sign-out), leased and retried as the outbox is.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("users")
    .addColumn("email_verified", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`update users set email_verified = 1 where status <> 'pending'`.execute(db);

  await db.schema
    .createTable("discourse_nonces")
    .addColumn("nonce_hash", "varchar(64)", (c) => c.primaryKey())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("discourse_nonces_expires_at").on("discourse_nonces").column("expires_at").execute();

  await db.schema
    .createTable("jobs")
    .addColumn("id", "varchar(36)", (c) => c.primaryKey())
    .addColumn("kind", "varchar(32)", (c) => c.notNull())
    /** JSON of what the job needs (e.g. the forum's external_id). */
    .addColumn("payload", "text", (c) => c.notNull())
    .addColumn("status", "varchar(16)", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull())
    .addColumn("next_attempt_at", "bigint", (c) => c.notNull())
    .addColumn("claimed_until", "bigint")
    .addColumn("last_error", "varchar(500)")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("done_at", "bigint")
    .execute();
  await db.schema.createIndex("jobs_due").on("jobs").columns(["status", "next_attempt_at"]).execute();
}
