import { sql } from "kysely";
import { afterAll, beforeAll } from "vitest";
import { type Db, migrate, openDatabase } from "../src/store/db.ts";
import { freshPostgres } from "./harness.ts";

/**
 * Several nodes on one database, for the race tests of issue #14: each node is a connection pool of its own, as a
 * second process would open (races*.test.ts).
 */
export const NODES = 4;

/** Opens `count` nodes on a database and fills each pool, so the attempts meet at the database, not at connect. */
export async function openNodes(url: string, count = NODES): Promise<Db[]> {
  const nodes = Array.from({ length: count }, () => openDatabase(url).db);
  await Promise.all(nodes.flatMap((db) => Array.from({ length: 10 }, () => sql`select pg_sleep(0.01)`.execute(db))));
  return nodes;
}

/**
 * For a describe block: a fresh PostgreSQL database, migrated through one pool of its own, then `NODES` nodes opened
 * on it before the first test and closed after the last. The array answered is filled in by then.
 */
export function useMigratedNodes(): Db[] {
  const nodes: Db[] = [];
  beforeAll(async () => {
    const databaseUrl = await freshPostgres();
    const first = openDatabase(databaseUrl).db;
    await migrate(first);
    await first.destroy();
    nodes.push(...(await openNodes(databaseUrl)));
  });
  afterAll(async () => {
    await Promise.all(nodes.map((db) => db.destroy()));
  });
  return nodes;
}

/** `attempts` calls started in the same tick, spread over the nodes; answers their outcomes in order. */
export function together<T>(nodes: Db[], attempts: number, call: (db: Db, i: number) => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: attempts }, (_, i) => call(nodes[i % nodes.length] as Db, i)));
}

export const oneToN = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
