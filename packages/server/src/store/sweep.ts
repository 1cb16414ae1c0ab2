import { PostgresAdapter, type RawBuilder, sql } from "kysely";
import type { Db } from "./db.ts";

/**
 * Issue #28: the most rows one sweeping statement deletes. A backlog of millions (a node down for a week, a
 * retention newly lowered) is removed in statements of this size, each holding its locks only briefly, rather than
 * by one statement that locks every expired row until it ends.
 */
export const SWEEP_BATCH = 1_000;

/**
 * Deletes at most `limit` rows of `table` that `where` selects, and answers how many. The rows are named by their
 * physical address (PostgreSQL's ctid, SQLite's rowid), so one helper serves tables of any key; `where` should be
 * served by an index (migration 019), so each batch reads only what it deletes.
 */
export async function deleteBatch(
  db: Db,
  table: string,
  where: RawBuilder<unknown>,
  limit = SWEEP_BATCH,
): Promise<number> {
  const query =
    db.getExecutor().adapter instanceof PostgresAdapter
      ? // `= any(array(…))`: a TID scan of the chosen rows (an `in (…)` may be planned as a join over the table).
        sql`delete from ${sql.table(table)} where ctid = any(array(select ctid from ${sql.table(table)} where ${where} limit ${limit}))`
      : sql`delete from ${sql.table(table)} where rowid in (select rowid from ${sql.table(table)} where ${where} limit ${limit})`;
  const result = await query.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}
