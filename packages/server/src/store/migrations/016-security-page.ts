import { type Kysely, sql } from "kysely";

/**
 * Issue #27, the person's security page.
 * - `sessions.host` and `sessions.country`: the host name a session is on (linked sessions of one sign-in are shown
 *   as one entry with their hosts) and the trusted country header's code at its sign-in. Null on sessions opened
 *   before.
 * - `audit.country`: the same code for each event, for the activity list. Null on events recorded before.
 * - `oidc_models.account_id`: the account of a grant, so the page lists a person's grants and a password change
 *   revokes them all (offline refresh tokens included) without reading every row. Only grants carry it; grants
 *   stored before are filled in from their payload here.
 * - `oidc_models.issued_at`: when the row was last written: a grant's "last used" is its newest token's.
 * - `known_browsers`: the browsers (device ids from the device cookie) an account has signed in from, so a sign-in
 *   from a browser never seen before mails the person once (the insert that adds the row is the one that mails).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("sessions").addColumn("host", "varchar(255)").execute();
  await db.schema.alterTable("sessions").addColumn("country", "varchar(2)").execute();
  await db.schema.alterTable("audit").addColumn("country", "varchar(2)").execute();

  await db.schema.alterTable("oidc_models").addColumn("account_id", "varchar(255)").execute();
  await db.schema.alterTable("oidc_models").addColumn("issued_at", "bigint").execute();
  await db.schema
    .createIndex("oidc_models_account_id")
    .on("oidc_models")
    .columns(["account_id", "model"])
    .where(sql.ref("account_id"), "is not", null)
    .execute();
  const grants = await sql<{
    id: string;
    payload: string;
  }>`select id, payload from oidc_models where model = 'Grant'`.execute(db);
  for (const grant of grants.rows) {
    const accountId = accountOf(grant.payload);
    if (accountId) {
      await sql`update oidc_models set account_id = ${accountId} where model = 'Grant' and id = ${grant.id}`.execute(
        db,
      );
    }
  }

  await db.schema
    .createTable("known_browsers")
    .addColumn("user_id", "varchar(36)", (c) => c.notNull())
    .addColumn("device_id", "varchar(32)", (c) => c.notNull())
    .addColumn("first_seen_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("known_browsers_pk", ["user_id", "device_id"])
    .execute();
}

function accountOf(payload: string): string | undefined {
  try {
    const accountId = (JSON.parse(payload) as { accountId?: unknown }).accountId;
    return typeof accountId === "string" ? accountId : undefined;
  } catch {
    return undefined;
  }
}
