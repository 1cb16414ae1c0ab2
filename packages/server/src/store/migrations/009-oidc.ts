import { type Kysely, sql } from "kysely";

/**
 * The OpenID Connect provider's state (issue #10 §2): every model of `oidc-provider` (sessions, interactions,
 * codes, tokens, grants) in one table keyed by model and id, as Logto keeps them, and the provider's signing keys.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("oidc_models")
    .addColumn("model", "varchar(64)", (c) => c.notNull())
    .addColumn("id", "varchar(255)", (c) => c.notNull())
    /** The model's payload as the provider hands it over, JSON. */
    .addColumn("payload", "text", (c) => c.notNull())
    /** Sessions are also found by uid; tokens and codes revoked by grant. */
    .addColumn("uid", "varchar(255)")
    .addColumn("grant_id", "varchar(255)")
    .addColumn("user_code", "varchar(255)")
    /** The gateway session a provider session was opened under (ids of `sessions`, unconstrained: it outlives it). */
    .addColumn("gateway_session_id", "varchar(64)")
    .addColumn("expires_at", "bigint")
    .addColumn("consumed_at", "bigint")
    .addPrimaryKeyConstraint("oidc_models_pk", ["model", "id"])
    .execute();
  // Partial indexes: only sessions have a uid and a gateway session, only device codes a user code; tokens are
  // written at every refresh, so they maintain no index they are never looked up by.
  await db.schema
    .createIndex("oidc_models_uid")
    .on("oidc_models")
    .columns(["model", "uid"])
    .where(sql.ref("uid"), "is not", null)
    .execute();
  await db.schema.createIndex("oidc_models_grant_id").on("oidc_models").column("grant_id").execute();
  await db.schema
    .createIndex("oidc_models_user_code")
    .on("oidc_models")
    .columns(["model", "user_code"])
    .where(sql.ref("user_code"), "is not", null)
    .execute();
  await db.schema
    .createIndex("oidc_models_gateway_session")
    .on("oidc_models")
    .column("gateway_session_id")
    .where(sql.ref("gateway_session_id"), "is not", null)
    .execute();
  await db.schema.createIndex("oidc_models_expires_at").on("oidc_models").column("expires_at").execute();

  await db.schema
    .createTable("oidc_keys")
    .addColumn("kid", "varchar(64)", (c) => c.primaryKey())
    /** next: published, not yet signing; current: signs; previous: published so tokens it signed still verify. */
    .addColumn("state", "varchar(16)", (c) => c.notNull())
    .addColumn("public_jwk", "text", (c) => c.notNull())
    /** The private JWK, AES-256-GCM encrypted (docs/decisions.md "Signing keys"). */
    .addColumn("private_jwk", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("oidc_keys_state").on("oidc_keys").column("state").execute();
}
