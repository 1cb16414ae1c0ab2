import type { Kysely } from "kysely";

/**
 * Issue #11, social and corporate sign-in. A flow is one round trip to a provider: found by the hash of its state,
 * bound to the browser that started it (the hash of its session cookie), used once, short-lived; it holds the
 * nonce and PKCE verifier the answer is checked against. A pending sign-in is a provider's answer that waits for
 * the person (a new account's details, or the existing account's password), one a browser. An account links at
 * most one identity a provider.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("federation_flows")
    /** SHA-256 of the state sent to the provider. */
    .addColumn("id", "varchar(64)", (c) => c.primaryKey())
    /** SHA-256 of the browser's session cookie. */
    .addColumn("browser", "varchar(64)", (c) => c.notNull())
    .addColumn("provider", "varchar(64)", (c) => c.notNull())
    .addColumn("nonce", "varchar(128)")
    .addColumn("code_verifier", "varchar(128)", (c) => c.notNull())
    .addColumn("redirect_uri", "varchar(2048)", (c) => c.notNull())
    .addColumn("return_to", "varchar(2048)")
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("federation_flows_expires_at").on("federation_flows").column("expires_at").execute();

  await db.schema
    .createTable("federation_pending")
    .addColumn("browser", "varchar(64)", (c) => c.primaryKey())
    .addColumn("kind", "varchar(16)", (c) => c.notNull())
    .addColumn("provider", "varchar(64)", (c) => c.notNull())
    .addColumn("subject", "varchar(255)", (c) => c.notNull())
    .addColumn("email", "varchar(254)", (c) => c.notNull())
    .addColumn("email_verified", "integer", (c) => c.notNull())
    .addColumn("first_name", "varchar(255)", (c) => c.notNull())
    .addColumn("last_name", "varchar(255)", (c) => c.notNull())
    .addColumn("full_name", "varchar(255)", (c) => c.notNull())
    .addColumn("return_to", "varchar(2048)")
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("federation_pending_expires_at").on("federation_pending").column("expires_at").execute();

  await db.schema
    .createIndex("external_identities_user_provider")
    .on("external_identities")
    .columns(["user_id", "provider"])
    .unique()
    .execute();
}
