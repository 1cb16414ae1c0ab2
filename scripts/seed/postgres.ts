/**
 * Writes the seeded rows into PostgreSQL with `COPY … FROM STDIN` (pg-copy-streams over the pg driver), as
 * PostgreSQL's manual advises for a bulk load ("Populating a Database"): secondary indexes dropped first and built
 * again at the end, commits that do not wait for the WAL's flush, and, where the role may, no foreign-key trigger per
 * row (the seed's rows refer only to accounts it wrote before them). Each table goes in two halves over two
 * connections, so the server's parsing and the seed's generating use both cores.
 */
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import type { TableRows } from "./rows.ts";
import { rate } from "./sqlite.ts";

/** Rows joined into one chunk of the stream: fewer, larger writes to the socket. */
const ROWS_PER_CHUNK = 2000;
const CONNECTIONS = 2;

/** COPY's text format: backslash, tab, newline and carriage return escaped; `\N` is null. */
function field(value: unknown): string {
  if (value === null || value === undefined) return "\\N";
  if (typeof value === "number") return String(value);
  return String(value).replace(
    /[\\\t\n\r]/gu,
    (c) => ({ "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" })[c] as string,
  );
}

function* chunks(rows: Iterable<unknown[]>, counter: { rows: number }): Iterable<string> {
  let lines: string[] = [];
  for (const row of rows) {
    lines.push(`${row.map(field).join("\t")}\n`);
    counter.rows += 1;
    if (lines.length === ROWS_PER_CHUNK) {
      yield lines.join("");
      lines = [];
    }
  }
  if (lines.length > 0) yield lines.join("");
}

/** Indexes that no constraint owns (a primary key or unique constraint stays: it is what keeps the rows right). */
async function secondaryIndexes(client: pg.Client, table: string): Promise<{ name: string; sql: string }[]> {
  const { rows } = await client.query<{ name: string; sql: string }>(
    `select indexname as name, indexdef as sql from pg_indexes
      where schemaname = current_schema() and tablename = $1
        and indexname not in (select conname from pg_constraint where conrelid = $1::regclass)`,
    [table],
  );
  return rows;
}

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query("set synchronous_commit = off");
  await client.query("set maintenance_work_mem = '256MB'");
  try {
    // Foreign keys are not checked row by row: only a superuser may say so; otherwise they are checked.
    await client.query("set session_replication_role = replica");
  } catch {}
  return client;
}

/** Runs the jobs on the clients, each client taking the next job when it is free. */
async function onClients(clients: pg.Client[], jobs: ((client: pg.Client) => Promise<void>)[]): Promise<void> {
  const queue = [...jobs];
  await Promise.all(
    clients.map(async (client) => {
      for (let job = queue.shift(); job; job = queue.shift()) await job(client);
    }),
  );
}

/** Writes every table into the (already migrated) database at `url`; answers rows per table. */
export async function writePostgres(
  url: string,
  tables: TableRows[],
  accounts: number,
  log: (line: string) => void,
): Promise<Record<string, number>> {
  const clients = await Promise.all(Array.from({ length: CONNECTIONS }, () => connect(url)));
  const counts: Record<string, number> = {};
  try {
    const [first] = clients as [pg.Client];
    const indexes: string[] = [];
    for (const spec of tables)
      for (const index of await secondaryIndexes(first, spec.table)) {
        await first.query(`drop index "${index.name}"`);
        indexes.push(index.sql);
      }
    const copy = (spec: TableRows, from: number, to: number) => async (client: pg.Client) => {
      const counter = { rows: 0 };
      const columns = spec.columns.map((c) => `"${c}"`).join(", ");
      const stream = client.query(copyFrom(`copy "${spec.table}" (${columns}) from stdin`));
      await pipeline(Readable.from(chunks(spec.rows(from, to), counter)), stream);
      counts[spec.table] = (counts[spec.table] ?? 0) + counter.rows;
    };
    const half = Math.ceil(accounts / 2);
    // The accounts first (every other row refers to one), then the rest.
    for (const group of [tables.slice(0, 1), tables.slice(1)]) {
      const started = performance.now();
      await onClients(
        clients,
        group.flatMap((spec) => [copy(spec, 0, half), copy(spec, half, accounts)]),
      );
      const seconds = (performance.now() - started) / 1000;
      const rows = group.reduce((sum, spec) => sum + (counts[spec.table] ?? 0), 0);
      log(
        `  ${group.map((spec) => `${spec.table} ${counts[spec.table]}`).join(", ")}: ${seconds.toFixed(1)} s (${rate(rows, seconds)})`,
      );
    }
    const started = performance.now();
    await onClients(
      clients,
      indexes.map((sql) => async (client) => void (await client.query(sql))),
    );
    log(`  ${indexes.length} secondary indexes built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    // The planner's statistics, as autovacuum would gather them after a bulk load.
    await first.query("analyze");
  } finally {
    await Promise.all(clients.map((client) => client.end()));
  }
  return counts;
}
