import type { Kysely } from "kysely";

/**
 * Issue #26, second factors and passkeys.
 * - `totp_factors`: one authenticator app per account. The secret is sealed under SESSION_SECRET (AES-256-GCM, the
 *   user id as additional data: oidc/keys.ts's seal); `confirmed_at` is null until one valid code confirmed it (an
 *   unconfirmed secret protects nothing and is replaced by the next "Turn on"). `last_step` is the last accepted
 *   RFC 6238 time step: that step and every earlier one are refused (no replay within a code's window).
 * - `recovery_codes`: ten single-use codes per set, stored as SHA-256 of a 50-bit-or-more random code (a hash a
 *   stolen table cannot reverse); `used_at` marks the one spend (an update `where used_at is null`).
 * - `passkeys`: WebAuthn credentials (id = the credential id, base64url), their COSE public key (base64url), the
 *   signature counter, transports, backed-up flag, the RP ID they were made for, a name, and use times.
 * - `webauthn_challenges`: one pending ceremony per browser and purpose (key: SHA-256 of the browser's token and the
 *   purpose), single-use (taken by a delete … returning), short-lived.
 * - `remembered_browsers`: "Remember this browser for 30 days": a device id (from the device cookie) trusted for one
 *   account's second factor; a password change or a factor reset deletes the account's rows.
 * - `sessions.fresh_at`: the last time the person proved who they are in this session (the sign-in, or a step-up):
 *   sensitive calls need it within STEP_UP_MS. Null on sessions opened before: they count as not fresh.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("totp_factors")
    .addColumn("user_id", "varchar(36)", (c) => c.primaryKey())
    .addColumn("secret_sealed", "text", (c) => c.notNull())
    .addColumn("confirmed_at", "bigint")
    .addColumn("last_step", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("recovery_codes")
    .addColumn("code_hash", "varchar(64)", (c) => c.primaryKey())
    .addColumn("user_id", "varchar(36)", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("used_at", "bigint")
    .execute();
  await db.schema.createIndex("recovery_codes_user_id").on("recovery_codes").column("user_id").execute();

  await db.schema
    .createTable("passkeys")
    .addColumn("id", "varchar(1400)", (c) => c.primaryKey())
    .addColumn("user_id", "varchar(36)", (c) => c.notNull())
    .addColumn("rp_id", "varchar(253)", (c) => c.notNull())
    .addColumn("public_key", "text", (c) => c.notNull())
    .addColumn("counter", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("transports", "varchar(128)", (c) => c.notNull().defaultTo(""))
    .addColumn("device_type", "varchar(16)", (c) => c.notNull())
    .addColumn("backed_up", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("name", "varchar(64)", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("last_used_at", "bigint")
    .execute();
  await db.schema.createIndex("passkeys_user_id").on("passkeys").column("user_id").execute();

  await db.schema
    .createTable("webauthn_challenges")
    .addColumn("id", "varchar(64)", (c) => c.primaryKey())
    .addColumn("challenge", "varchar(128)", (c) => c.notNull())
    .addColumn("purpose", "varchar(24)", (c) => c.notNull())
    .addColumn("user_id", "varchar(36)")
    .addColumn("rp_id", "varchar(253)", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("webauthn_challenges_expires_at")
    .on("webauthn_challenges")
    .column("expires_at")
    .execute();

  await db.schema
    .createTable("remembered_browsers")
    .addColumn("device_id", "varchar(32)", (c) => c.notNull())
    .addColumn("user_id", "varchar(36)", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("remembered_browsers_pk", ["device_id", "user_id"])
    .execute();
  await db.schema.createIndex("remembered_browsers_user_id").on("remembered_browsers").column("user_id").execute();
  await db.schema
    .createIndex("remembered_browsers_expires_at")
    .on("remembered_browsers")
    .column("expires_at")
    .execute();

  await db.schema.alterTable("sessions").addColumn("fresh_at", "bigint").execute();
}
