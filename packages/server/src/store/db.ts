import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from "kysely";
import pg from "pg";
import { migrationProvider } from "./migrations/index.ts";
import type { Database } from "./schema.ts";
import { openSqlite } from "./sqlite-driver.ts";

export type Db = Kysely<Database>;
export type DbKind = "sqlite" | "postgres";

// PostgreSQL returns bigint (int8) as text; our bigints are epoch milliseconds, exact as JS numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number.parseInt(value, 10));

export interface OpenDatabase {
  db: Db;
  kind: DbKind;
  /** PostgreSQL's connection pool (its use is a metric, issue #14); none for SQLite. */
  pool?: pg.Pool;
}

/** What each opened database is, for `exclusively` (a transaction object is found by the database it came from). */
const kinds = new WeakMap<Db, DbKind>();

/** Opens the database named by DATABASE_URL: `sqlite:<path>` (or `sqlite::memory:`) or `postgres://…`. */
export function openDatabase(url: string): OpenDatabase {
  if (url.startsWith("postgres://") || url.startsWith("postgresql://")) {
    const pool = new pg.Pool({ connectionString: url, max: 10 });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    kinds.set(db, "postgres");
    return { db, kind: "postgres", pool };
  }
  const path = url.slice("sqlite:".length);
  if (path !== ":memory:") mkdirSync(dirname(resolve(path)), { recursive: true });
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: openSqlite(path) }) });
  kinds.set(db, "sqlite");
  return { db, kind: "sqlite" };
}

/**
 * Runs `work` in one transaction that no other node runs at the same time, for a read-then-write that rows alone
 * cannot settle (nothing to lock exists yet, e.g. the first signing keys). On PostgreSQL it holds a transaction
 * advisory lock named by `name` until it commits, so several nodes starting together take turns and each sees what
 * the one before wrote; SQLite serves one node (several need PostgreSQL), and its transaction is enough there.
 */
export async function exclusively<T>(db: Db, name: string, work: (trx: Db) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    if (kinds.get(db) === "postgres")
      await sql`select pg_advisory_xact_lock(hashtext(${`gatehouse:${name}`}))`.execute(trx);
    return work(trx);
  });
}

/** Brings the schema to the newest migration; throws with the failing migration's error. */
export async function migrate(db: Db): Promise<void> {
  const { error, results } = await new Migrator({ db, provider: migrationProvider }).migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === "Error")?.migrationName ?? "unknown";
    throw new Error(`migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Readiness: the database answers a trivial query. */
export async function ping(db: Db): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}
