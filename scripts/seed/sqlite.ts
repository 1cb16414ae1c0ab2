/**
 * Writes the seeded rows into a SQLite file: the secondary indexes are dropped first and built again at the end
 * (one sort each instead of millions of random B-tree inserts), rows go in multi-row prepared INSERTs, many to a
 * transaction, with the journal's syncs off while the file is being filled (a seed that crashes is run again).
 */
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import type { TableRows } from "./rows.ts";

/** SQLite binds at most 32,766 parameters to a statement; a few hundred rows a statement is past the gain. */
const MAX_PARAMETERS = 30_000;
const MAX_ROWS_PER_INSERT = 250;
const ROWS_PER_TRANSACTION = 100_000;

function secondaryIndexes(db: DatabaseSync, table: string): { name: string; sql: string }[] {
  return db
    .prepare("select name, sql from sqlite_master where type = 'index' and tbl_name = ? and sql is not null")
    .all(table) as { name: string; sql: string }[];
}

function insertStatement(db: DatabaseSync, table: string, columns: string[], rows: number): StatementSync {
  const tuple = `(${columns.map(() => "?").join(", ")})`;
  const list = Array.from({ length: rows }, () => tuple).join(", ");
  return db.prepare(`insert into "${table}" (${columns.map((c) => `"${c}"`).join(", ")}) values ${list}`);
}

/** Fills one table; answers the number of rows written. */
function fill(db: DatabaseSync, spec: TableRows, accounts: number): number {
  const perInsert = Math.min(MAX_ROWS_PER_INSERT, Math.floor(MAX_PARAMETERS / spec.columns.length));
  const full = insertStatement(db, spec.table, spec.columns, perInsert);
  let values: SQLInputValue[] = [];
  let buffered = 0;
  let written = 0;
  db.exec("begin");
  for (const row of spec.rows(0, accounts)) {
    for (const value of row) values.push(value as SQLInputValue);
    buffered += 1;
    if (buffered === perInsert) {
      full.run(...values);
      written += buffered;
      values = [];
      buffered = 0;
      if (written % ROWS_PER_TRANSACTION < perInsert) db.exec("commit; begin");
    }
  }
  if (buffered > 0) insertStatement(db, spec.table, spec.columns, buffered).run(...values);
  db.exec("commit");
  return written + buffered;
}

/** Writes every table into the (already migrated) SQLite file at `path`; answers rows per table. */
export function writeSqlite(
  path: string,
  tables: TableRows[],
  accounts: number,
  log: (line: string) => void,
): Record<string, number> {
  const db = new DatabaseSync(path);
  const counts: Record<string, number> = {};
  try {
    db.exec(
      "pragma journal_mode = wal; pragma synchronous = off; pragma cache_size = -1048576; pragma temp_store = memory",
    );
    for (const spec of tables) {
      const started = performance.now();
      const indexes = secondaryIndexes(db, spec.table);
      for (const index of indexes) db.exec(`drop index "${index.name}"`);
      counts[spec.table] = fill(db, spec, accounts);
      for (const index of indexes) db.exec(index.sql);
      const seconds = (performance.now() - started) / 1000;
      log(
        `  ${spec.table}: ${counts[spec.table]} rows in ${seconds.toFixed(1)} s (${rate(counts[spec.table], seconds)})`,
      );
    }
    // The planner's statistics from a sample of each index, as SQLite's own `pragma optimize` gathers them.
    db.exec("pragma analysis_limit = 1000; analyze; pragma wal_checkpoint(truncate)");
  } finally {
    db.close();
  }
  return counts;
}

export const rate = (rows = 0, seconds = 0) =>
  `${Math.round(rows / Math.max(seconds, 0.001)).toLocaleString("en")} rows/s`;
