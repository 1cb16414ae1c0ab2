import { sql } from "kysely";
import type { Db } from "./db.ts";
import type { OidcModelRow } from "./schema.ts";
import { deleteBatch, SWEEP_BATCH } from "./sweep.ts";

/** What the provider's adapter writes for one model instance. */
export interface OidcModelWrite {
  model: string;
  id: string;
  payload: string;
  uid: string | null;
  grantId: string | null;
  userCode: string | null;
  gatewaySessionId: string | null;
  /** Issue #27: a grant's account (only grants carry it: the security page lists them, a password change revokes them). */
  accountId: string | null;
  expiresAt: number | null;
  /** When it was written (a grant's "last used" is its newest token's). */
  issuedAt: number;
}

/** Ids per statement of a query naming many grants: well under both databases' caps on bound parameters. */
const IDS_PER_STATEMENT = 500;

function* chunksOf(ids: readonly string[]): Generator<readonly string[]> {
  for (let start = 0; start < ids.length; start += IDS_PER_STATEMENT) yield ids.slice(start, start + IDS_PER_STATEMENT);
}

/** Queries of the OpenID Connect provider's models (one table for every model, keyed by model and id). */
export const oidcStore = {
  /**
   * Written at every token issued, so written as one statement the same on SQLite and PostgreSQL, without the
   * query builder's work per call (issue #10's refresh-grant target).
   */
  upsert: async (db: Db, row: OidcModelWrite): Promise<void> => {
    await sql`insert into oidc_models (model, id, payload, uid, grant_id, user_code, gateway_session_id, account_id, expires_at, issued_at, consumed_at)
      values (${row.model}, ${row.id}, ${row.payload}, ${row.uid}, ${row.grantId}, ${row.userCode}, ${row.gatewaySessionId}, ${row.accountId}, ${row.expiresAt}, ${row.issuedAt}, null)
      on conflict (model, id) do update set payload = excluded.payload, uid = excluded.uid, grant_id = excluded.grant_id,
        user_code = excluded.user_code, gateway_session_id = excluded.gateway_session_id, account_id = excluded.account_id,
        expires_at = excluded.expires_at, issued_at = excluded.issued_at`.execute(db);
  },

  /** A live row (not past its expiry) by id, or by one of the columns the provider looks models up by. */
  find: async (
    db: Db,
    model: string,
    by: "id" | "uid" | "user_code",
    value: string,
    now: number,
  ): Promise<OidcModelRow | undefined> =>
    db
      .selectFrom("oidc_models")
      .selectAll()
      .where("model", "=", model)
      .where(by, "=", value)
      .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", now)]))
      .executeTakeFirst(),

  /**
   * Marks a code or token consumed unless something consumed it first: one conditional update, so of two requests
   * racing with it (on one node or several) exactly one wins. A call that lost (or found no row) learns the row's
   * grant, so the caller can end it.
   */
  consume: async (
    db: Db,
    model: string,
    id: string,
    now: number,
  ): Promise<{ lost: false } | { lost: true; grantId: string | null }> => {
    const won = await db
      .updateTable("oidc_models")
      .set({ consumed_at: now })
      .where("model", "=", model)
      .where("id", "=", id)
      .where("consumed_at", "is", null)
      .executeTakeFirst();
    if (won.numUpdatedRows > 0n) return { lost: false };
    const row = await db
      .selectFrom("oidc_models")
      .select("grant_id")
      .where("model", "=", model)
      .where("id", "=", id)
      .executeTakeFirst();
    return { lost: true, grantId: row?.grant_id ?? null };
  },

  destroy: async (db: Db, model: string, id: string): Promise<void> => {
    await db.deleteFrom("oidc_models").where("model", "=", model).where("id", "=", id).execute();
  },

  /** The codes or tokens of one model issued under a grant (a reused code, a revoked grant). */
  revokeByGrantId: async (db: Db, model: string, grantId: string): Promise<void> => {
    await db.deleteFrom("oidc_models").where("model", "=", model).where("grant_id", "=", grantId).execute();
  },

  /** A grant and everything issued under it, whatever the model. */
  revokeGrant: async (db: Db, grantId: string): Promise<void> => {
    await db
      .deleteFrom("oidc_models")
      .where((eb) => eb.or([eb("grant_id", "=", grantId), eb.and([eb("model", "=", "Grant"), eb("id", "=", grantId)])]))
      .execute();
  },

  /** Issue #27: the ids of an account's grants (served by oidc_models_account_id). */
  grantIdsOf: async (db: Db, accountId: string): Promise<string[]> => {
    const rows = await db
      .selectFrom("oidc_models")
      .select("id")
      .where("account_id", "=", accountId)
      .where("model", "=", "Grant")
      .execute();
    return rows.map((row) => row.id);
  },

  /**
   * Grants and everything issued under them, whatever the model. A few hundred ids per statement: a person may hold
   * tens of thousands of grants (nothing limits sign-ins to a site), beyond the parameters one statement may bind
   * (SQLite 32,766; PostgreSQL 65,535), and a password change that revokes them must not fail (issue #27 review).
   */
  revokeGrants: async (db: Db, grantIds: readonly string[]): Promise<void> => {
    for (const ids of chunksOf(grantIds)) {
      await db
        .deleteFrom("oidc_models")
        .where((eb) => eb.or([eb("grant_id", "in", ids), eb.and([eb("model", "=", "Grant"), eb("id", "in", ids)])]))
        .execute();
    }
  },

  /**
   * Issue #27: an account's live grants (its security page's apps), served by oidc_models_account_id; a person has a
   * few dozen at most.
   */
  grantsOf: async (db: Db, accountId: string, now: number): Promise<Pick<OidcModelRow, "id" | "payload">[]> =>
    db
      .selectFrom("oidc_models")
      .select(["id", "payload"])
      .where("account_id", "=", accountId)
      .where("model", "=", "Grant")
      .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", now)]))
      .execute(),

  /**
   * Issue #27: one live grant by its id, only if it is this account's: both conditions in one query, so another
   * person's grant id is found exactly as an unknown one is (ASVS 8.2.2, no IDOR).
   */
  grantOf: async (
    db: Db,
    accountId: string,
    grantId: string,
    now: number,
  ): Promise<Pick<OidcModelRow, "id" | "payload"> | undefined> =>
    db
      .selectFrom("oidc_models")
      .select(["id", "payload"])
      .where("model", "=", "Grant")
      .where("id", "=", grantId)
      .where("account_id", "=", accountId)
      .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", now)]))
      .executeTakeFirst(),

  /** Issue #27: when each grant last had a code or token issued under it (oidc_models_grant_id); absent if never. */
  lastIssuedUnder: async (db: Db, grantIds: readonly string[]): Promise<Map<string, number>> => {
    const last = new Map<string, number>();
    // In chunks, as revokeGrants: the person's grants may outnumber one statement's parameters.
    for (const ids of chunksOf(grantIds)) {
      const rows = await db
        .selectFrom("oidc_models")
        .select((eb) => ["grant_id", eb.fn.max("issued_at").as("last")])
        .where("grant_id", "in", ids)
        .groupBy("grant_id")
        .execute();
      for (const row of rows) if (row.grant_id !== null && row.last !== null) last.set(row.grant_id, Number(row.last));
    }
    return last;
  },

  /**
   * Issue #27: the provider sessions opened under any of the account's gateway sessions (sessions_user_id, then
   * oidc_models_gateway_session).
   */
  sessionsOfAccount: async (db: Db, accountId: string): Promise<Pick<OidcModelRow, "id" | "payload">[]> =>
    db
      .selectFrom("oidc_models")
      .select(["id", "payload"])
      .where("model", "=", "Session")
      .where("gateway_session_id", "in", (eb) =>
        eb.selectFrom("sessions").select("sessions.id").where("sessions.user_id", "=", accountId),
      )
      .execute(),

  /** Rewrites a stored model's payload alone (its columns and expiry stay). */
  setPayload: async (db: Db, model: string, id: string, payload: string): Promise<void> => {
    await db.updateTable("oidc_models").set({ payload }).where("model", "=", model).where("id", "=", id).execute();
  },

  /** The provider sessions opened under any of these gateway sessions. */
  sessionsOfGateway: async (db: Db, gatewaySessionIds: readonly string[]): Promise<OidcModelRow[]> => {
    if (gatewaySessionIds.length === 0) return [];
    return db
      .selectFrom("oidc_models")
      .selectAll()
      .where("model", "=", "Session")
      .where("gateway_session_id", "in", gatewaySessionIds)
      .execute();
  },

  /** The gateway session a provider session was opened under, if it is still stored. */
  gatewaySessionOf: async (db: Db, sessionId: string): Promise<string | null | undefined> => {
    const row = await db
      .selectFrom("oidc_models")
      .select("gateway_session_id")
      .where("model", "=", "Session")
      .where("id", "=", sessionId)
      .executeTakeFirst();
    return row?.gateway_session_id;
  },

  /** At most `limit` expired models per call (issue #28: the sweeper calls again). */
  deleteExpired: (db: Db, now: number, limit = SWEEP_BATCH): Promise<number> =>
    deleteBatch(db, "oidc_models", sql`expires_at <= ${now}`, limit),
};
