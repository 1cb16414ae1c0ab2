/**
 * The query plans of the hot paths at the seeded size (`npm run bench -- --seeded --plans`, issue #28): the very
 * statements the stores run — caught as Kysely compiles them, with values of real seeded rows — explained with
 * EXPLAIN QUERY PLAN on SQLite and EXPLAIN (ANALYZE, BUFFERS) on PostgreSQL. Writes are caught and explained in
 * transactions that are rolled back, so the database is left as it was.
 */
import { createHash } from "node:crypto";
import { SESSION_IDLE_MS } from "@gatehouse/contract";
import type { CompiledQuery, KyselyPlugin } from "kysely";
import { normalizeEmail } from "../../packages/server/src/accounts/identifiers.ts";
import { auditStore } from "../../packages/server/src/store/audit.ts";
import { codesStore } from "../../packages/server/src/store/codes.ts";
import { type Db, openDatabase } from "../../packages/server/src/store/db.ts";
import { oidcStore } from "../../packages/server/src/store/oidc.ts";
import { recoveryQuotaStore } from "../../packages/server/src/store/recovery-quota.ts";
import { sessionsStore } from "../../packages/server/src/store/sessions.ts";
import { throttleStore } from "../../packages/server/src/store/throttle.ts";
import { usersStore } from "../../packages/server/src/store/users.ts";

const DAY = 86_400_000;

class Rollback extends Error {}

/** A plugin that keeps every statement the database is asked, compiled as its dialect sends it. */
function catcher(db: Db) {
  const caught: CompiledQuery[] = [];
  const executor = db.getExecutor();
  const plugin: KyselyPlugin = {
    transformQuery: (args) => {
      caught.push(executor.compileQuery(args.node, args.queryId));
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  return { caught, db: db.withPlugin(plugin) };
}

/** The statements `work` runs, caught in a transaction that is then rolled back. */
export async function statementsOf(db: Db, work: (db: Db) => Promise<unknown>): Promise<CompiledQuery[]> {
  const { caught, db: watched } = catcher(db);
  try {
    await watched.transaction().execute(async (trx) => {
      caught.length = 0;
      await work(trx);
      throw new Rollback();
    });
  } catch (error) {
    if (!(error instanceof Rollback)) throw error;
  }
  return caught;
}

async function explain(db: Db, postgres: boolean, query: CompiledQuery): Promise<string> {
  const prefix = postgres ? "explain (analyze, buffers, costs off) " : "explain query plan ";
  let lines: string[] = [];
  try {
    await db.transaction().execute(async (trx) => {
      const { rows } = await trx.executeQuery<Record<string, unknown>>({
        ...query,
        sql: prefix + query.sql,
      } as CompiledQuery<Record<string, unknown>>);
      lines = rows.map((row) =>
        postgres ? String(row["QUERY PLAN"]) : `${"  ".repeat(depth(rows, row))}${String(row.detail)}`,
      );
      // EXPLAIN ANALYZE runs the statement: a delete must not stay done.
      throw new Rollback();
    });
  } catch (error) {
    if (!(error instanceof Rollback)) throw error;
  }
  return lines.join("\n");
}

/** The nesting of a row of SQLite's EXPLAIN QUERY PLAN (its `parent` is the id of the row it belongs under). */
function depth(rows: Record<string, unknown>[], row: Record<string, unknown>): number {
  let level = 0;
  for (let parent = row.parent; parent; level++) parent = rows.find((r) => r.id === parent)?.parent;
  return level;
}

/** Values of real seeded rows for the statements: a live session, its account, a refresh token and its grant. */
async function samples(db: Db) {
  const session = await db
    .selectFrom("sessions")
    .innerJoin("users", "users.id", "sessions.user_id")
    .select(["sessions.id", "users.id as userId", "users.email_normalized as email"])
    .where("sessions.expires_at", ">", Date.now())
    .limit(1)
    .executeTakeFirstOrThrow();
  const token = await db
    .selectFrom("oidc_models")
    .select(["id", "grant_id"])
    .where("model", "=", "RefreshToken")
    .where("expires_at", ">", Date.now())
    .limit(1)
    .executeTakeFirstOrThrow();
  return { session, token };
}

/** The hot paths' statements and their plans, on the database at `databaseUrl`. */
export async function queryPlans(databaseUrl: string): Promise<{ path: string; sql: string; plan: string }[]> {
  const { db, kind } = openDatabase(databaseUrl);
  const postgres = kind === "postgres";
  try {
    const { session, token } = await samples(db);
    const now = Date.now();
    const accountKey = createHash("sha256").update(normalizeEmail(session.email)).digest("hex");
    const deleteOlderThan = (auditStore as Record<string, unknown>).deleteOlderThan as
      | ((db: Db, before: number) => Promise<number>)
      | undefined;
    const paths: [string, (db: Db) => Promise<unknown>][] = [
      ["session check: the session with its account", (d) => sessionsStore.findWithUser(d, session.id)],
      ["session check: the minute's touch", (d) => sessionsStore.touch(d, session.id, now)],
      ["sign-in, registration, recovery: the account by address", (d) => usersStore.findByEmail(d, session.email)],
      ["sign-in: the account's allowance", (d) => throttleStore.find(d, { scope: "account", key: accountKey })],
      ["recovery: the address's mail quota", (d) => recoveryQuotaStore.count(d, accountKey, now, 3_600_000)],
      [
        "recovery: the account's open codes retired",
        (d) => codesStore.retireOpen(d, session.userId, "password_reset", now),
      ],
      ["profile: the account by id", (d) => usersStore.findById(d, session.userId)],
      ["refresh grant: the refresh token", (d) => oidcStore.find(d, "RefreshToken", "id", token.id, now)],
      ["refresh grant: its grant", (d) => oidcStore.find(d, "Grant", "id", token.grant_id as string, now)],
      ["sweeper: expired and idle sessions", (d) => sessionsStore.deleteExpired(d, now, now - SESSION_IDLE_MS)],
      ["sweeper: expired OpenID models", (d) => oidcStore.deleteExpired(d, now)],
      ["sweeper: stale codes", (d) => codesStore.deleteStale(d, now - 30 * DAY)],
      ...(deleteOlderThan
        ? [
            ["sweeper: audit past retention", (d: Db) => deleteOlderThan(d, now - 400 * DAY)] as [
              string,
              (d: Db) => Promise<unknown>,
            ],
          ]
        : []),
    ];
    const plans = [];
    for (const [path, work] of paths)
      for (const caught of await statementsOf(db, work)) {
        // The session read is compiled once with a blank id and bound to the real one per call (store/sessions.ts).
        const query = { ...caught, parameters: caught.parameters.map((p) => (p === "" ? session.id : p)) };
        plans.push({ path, sql: query.sql, plan: await explain(db, postgres, query as CompiledQuery) });
      }
    return plans;
  } finally {
    await db.destroy();
  }
}
