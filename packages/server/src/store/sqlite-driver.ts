import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import type { SqliteDatabase, SqliteStatement } from "kysely";

/**
 * Adapts `node:sqlite` to the better-sqlite3 shape Kysely's SqliteDialect drives, so SQLite needs no native
 * addon (ARCHITECTURE.md). Prepared statements are cached by SQL text: Kysely prepares on every query.
 * `busyTimeoutMs` (SQLITE_BUSY_TIMEOUT_MS): how long a write waits for another connection's write transaction
 * before SQLITE_BUSY, which a request answers with 503 and Retry-After (issue #28).
 */
export function openSqlite(path: string, busyTimeoutMs = 5000): SqliteDatabase {
  const db = new DatabaseSync(path, { timeout: busyTimeoutMs });
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;");
  const cache = new Map<string, SqliteStatement>();
  return {
    close: () => db.close(),
    prepare(sql: string): SqliteStatement {
      let statement = cache.get(sql);
      if (!statement) {
        statement = adapt(db.prepare(sql));
        if (cache.size >= 500) cache.clear();
        cache.set(sql, statement);
      }
      return statement;
    },
  };
}

function adapt(statement: StatementSync): SqliteStatement {
  const reader = statement.columns().length > 0;
  return {
    reader,
    all: (parameters) => statement.all(...bind(parameters)),
    run: (parameters) => {
      const result = statement.run(...bind(parameters));
      return { changes: result.changes, lastInsertRowid: result.lastInsertRowid };
    },
    iterate: (parameters) => statement.iterate(...bind(parameters)),
  };
}

/** node:sqlite binds numbers, strings, bigints, buffers and null; booleans become 0/1. */
function bind(parameters: ReadonlyArray<unknown>): SQLInputValue[] {
  return parameters.map((value) => {
    if (typeof value === "boolean") return value ? 1 : 0;
    if (value === undefined) return null;
    return value as SQLInputValue;
  });
}
