import { type Kysely, sql } from "kysely";

/** One-time codes, the mail outbox, image captchas and spent bot-check tokens; sign-up details on users. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("users").addColumn("signup_meta", "text").execute();

  await db.schema
    .createTable("codes")
    .addColumn("id", "varchar(36)", (c) => c.primaryKey())
    .addColumn("user_id", "varchar(36)", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("purpose", "varchar(32)", (c) => c.notNull())
    // SHA-256 of the code: the table never holds a usable link.
    .addColumn("code_hash", "varchar(64)", (c) => c.notNull().unique())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .addColumn("used_at", "bigint")
    .execute();
  await db.schema.createIndex("codes_user_purpose").on("codes").columns(["user_id", "purpose"]).execute();

  await db.schema
    .createTable("outbox")
    .addColumn("id", "varchar(36)", (c) => c.primaryKey())
    .addColumn("user_id", "varchar(36)", (c) => c.references("users.id").onDelete("cascade"))
    .addColumn("recipient", "varchar(254)", (c) => c.notNull())
    .addColumn("kind", "varchar(32)", (c) => c.notNull())
    .addColumn("subject", "varchar(300)", (c) => c.notNull())
    .addColumn("text_body", "text", (c) => c.notNull())
    .addColumn("html_body", "text", (c) => c.notNull())
    .addColumn("status", "varchar(16)", (c) => c.notNull().check(sql`status in ('pending', 'sent', 'failed')`))
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("next_attempt_at", "bigint", (c) => c.notNull())
    .addColumn("claimed_until", "bigint")
    .addColumn("last_error", "varchar(500)")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("sent_at", "bigint")
    .execute();
  await db.schema.createIndex("outbox_due").on("outbox").columns(["status", "next_attempt_at"]).execute();

  await db.schema
    .createTable("captchas")
    .addColumn("id", "varchar(36)", (c) => c.primaryKey())
    .addColumn("answer_hash", "varchar(64)", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("spent_tokens")
    .addColumn("token_hash", "varchar(64)", (c) => c.primaryKey())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .execute();
}
