/**
 * Migration 019 (issue #28): the sweeper's statements for expired sessions and stale codes read by an index, not by
 * a scan of every row (2,000,000 sessions at a million accounts), on SQLite and PostgreSQL. The statements are the
 * stores' own, caught as they compile (scripts/bench/plans.ts).
 */
import { SESSION_IDLE_MS } from "@gatehouse/contract";
import { type CompiledQuery, sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { statementsOf } from "../../../scripts/bench/plans.ts";
import { codesStore } from "../src/store/codes.ts";
import { type Db, migrate, openDatabase } from "../src/store/db.ts";
import { sessionsStore } from "../src/store/sessions.ts";
import { describeDatabases, freshPostgres, tempDir } from "./harness.ts";

const DAY = 86_400_000;

/** The plan of `query`; on PostgreSQL with sequential scans priced out, so an index is taken whenever one serves. */
async function planOf(db: Db, postgres: boolean, query: CompiledQuery): Promise<string> {
  let plan = "";
  await db
    .transaction()
    .execute(async (trx) => {
      if (postgres) await sql`set local enable_seqscan = off`.execute(trx);
      const prefix = postgres ? "explain (costs off) " : "explain query plan ";
      const { rows } = await trx.executeQuery<Record<string, unknown>>({
        ...query,
        sql: prefix + query.sql,
      } as CompiledQuery<Record<string, unknown>>);
      plan = rows.map((row) => String(row["QUERY PLAN"] ?? row.detail)).join("\n");
      throw new Error("rollback");
    })
    .catch((error: Error) => {
      if (error.message !== "rollback") throw error;
    });
  return plan;
}

describeDatabases([
  ["SQLite", async () => `sqlite:${tempDir()}/indexes.db`],
  ["PostgreSQL", freshPostgres],
])("the sweeper's indexes on %s", (name, database) => {
  const postgres = name === "PostgreSQL";
  let db: Db;
  beforeAll(async () => {
    db = openDatabase(await database()).db;
    await migrate(db);
  });
  afterAll(() => db?.destroy());

  const plansOf = async (work: (db: Db) => Promise<unknown>) => {
    const plans = [];
    for (const query of await statementsOf(db, work)) plans.push(await planOf(db, postgres, query));
    return plans.join("\n");
  };

  it("finds expired and idle sessions by index", async () => {
    const now = Date.now();
    const plan = await plansOf((d) => sessionsStore.deleteExpired(d, now, now - SESSION_IDLE_MS));
    expect(plan).toMatch(postgres ? /sessions_expires_at/u : /USING INDEX sessions_expires_at/u);
    expect(plan).toMatch(/sessions_last_seen_at/u);
    expect(plan).not.toMatch(postgres ? /Seq Scan on sessions/u : /SCAN sessions(?! USING)/u);
  });

  it("finds stale codes by index", async () => {
    const plan = await plansOf((d) => codesStore.deleteStale(d, Date.now() - 30 * DAY));
    expect(plan).toMatch(/codes_expires_at/u);
    expect(plan).not.toMatch(postgres ? /Seq Scan on codes/u : /SCAN codes(?! USING)/u);
  });
});
