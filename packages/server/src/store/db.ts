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

/** Opens the database named by DATABASE_URL: `sqlite:<path>` (or `sqlite::memory:`) or `postgres://…`. */
export function openDatabase(url: string): OpenDatabase {
  if (url.startsWith("postgres://") || url.startsWith("postgresql://")) {
    const pool = new pg.Pool({ connectionString: url, max: 10 });
    return { db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), kind: "postgres", pool };
  }
  const path = url.slice("sqlite:".length);
  if (path !== ":memory:") mkdirSync(dirname(resolve(path)), { recursive: true });
  return { db: new Kysely<Database>({ dialect: new SqliteDialect({ database: openSqlite(path) }) }), kind: "sqlite" };
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
