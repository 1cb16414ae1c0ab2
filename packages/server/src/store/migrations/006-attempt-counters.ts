import type { Kysely } from "kysely";

/**
 * Every counter in its own namespace (issue #8): the sign-in throttle is rebuilt with a scope (the account's
 * shared allowance, or one trusted browser's), and the recovery-mail quota, which shared its table and key space,
 * gets a table of its own. The old rows are dropped, not moved: their keys cannot be told apart, and what they
 * held (blocks of at most 15 minutes, mail counts of at most an hour) is safe to forget.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("login_throttle").execute();

  await db.schema
    .createTable("login_throttle")
    // "account": every browser the account has not trusted, together; "device": one trusted browser.
    .addColumn("scope", "varchar(16)", (c) => c.notNull())
    .addColumn("key", "varchar(64)", (c) => c.notNull())
    // The account the allowance belongs to, so a reset, an unlock or a deletion reaches its devices too.
    .addColumn("account_key", "varchar(64)", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull())
    .addColumn("blocked_until", "bigint")
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("login_throttle_pk", ["scope", "key"])
    .execute();
  await db.schema.createIndex("login_throttle_account").on("login_throttle").column("account_key").execute();
  await db.schema.createIndex("login_throttle_updated").on("login_throttle").column("updated_at").execute();

  await db.schema
    .createTable("recovery_quota")
    .addColumn("key", "varchar(64)", (c) => c.primaryKey())
    .addColumn("mails", "integer", (c) => c.notNull())
    .addColumn("window_ends", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("recovery_quota_window_ends").on("recovery_quota").column("window_ends").execute();
}
