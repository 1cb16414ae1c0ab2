import { type Kysely, PostgresAdapter, sql } from "kysely";

/**
 * Issue #28, a million accounts: the query plans of the hot paths at that size (docs/performance.md) found every
 * request's statement on an index, and two of the sweeper's on a full scan: expired and idle sessions (`expires_at
 * <= now or last_seen_at <= idle limit`, 2,000,000 rows read every pass) and stale codes (`expires_at < …`). An
 * index on each column lets both be read by range (SQLite's multi-index OR, PostgreSQL's BitmapOr), batched or not.
 * An index that already leads with the column (migration 019 indexes what the batched sweeper reads) is not made twice.
 */
const INDEXES = [
  { name: "sessions_expires_at", table: "sessions", column: "expires_at" },
  { name: "sessions_last_seen_at", table: "sessions", column: "last_seen_at" },
  { name: "codes_expires_at", table: "codes", column: "expires_at" },
] as const;

/** True when some index of `table` has `column` as its first column. */
async function indexedBy(db: Kysely<unknown>, table: string, column: string): Promise<boolean> {
  const query =
    db.getExecutor().adapter instanceof PostgresAdapter
      ? sql`select 1 from pg_index i
              join pg_class t on t.oid = i.indrelid
              join pg_attribute a on a.attrelid = t.oid and a.attnum = i.indkey[0]
             where t.relname = ${table} and t.relnamespace = current_schema()::regnamespace and a.attname = ${column}`
      : sql`select 1 from pragma_index_list(${table}) l, pragma_index_info(l.name) c
             where c.seqno = 0 and c.name = ${column}`;
  return (await query.execute(db)).rows.length > 0;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const index of INDEXES)
    if (!(await indexedBy(db, index.table, index.column)))
      await db.schema.createIndex(index.name).on(index.table).column(index.column).execute();
}
