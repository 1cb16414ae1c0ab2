/**
 * `npm run seed -- --accounts N [--database URL | --postgres]` (issue #28): fills a database fast with a realistic
 * population — accounts in every state and language with argon2id password hashes, two sessions per account on
 * average, ten audit events per account, OpenID Connect grants with their tokens, provider identities, second
 * factors for a share — for measuring the service at a million accounts (`npm run bench -- --seeded`).
 *  - SQLite (the default: a fresh file, its path printed; or `--database sqlite:<path>`): multi-row prepared INSERTs
 *    in large transactions;
 *  - PostgreSQL (`--database postgres://…`, or `--postgres` for an embedded server kept running until Ctrl-C):
 *    `COPY … FROM STDIN`.
 * The schema is our migrations'; a database that already has accounts is refused (the seed is for empty ones).
 * Every seeded account's address and password follow from its index (scripts/seed/rows.ts).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { hashPassword } from "../packages/server/src/accounts/passwords.ts";
import { migrate, openDatabase } from "../packages/server/src/store/db.ts";
import { population, SEED_PASSWORDS, seedTables } from "./seed/rows.ts";
import { rate, writeSqlite } from "./seed/sqlite.ts";

export interface SeedResult {
  databaseUrl: string;
  rows: Record<string, number>;
  seconds: number;
}

/** Migrates the database at `databaseUrl`, then seeds `accounts` accounts and their rows into it. */
export async function seedDatabase(
  databaseUrl: string,
  accounts: number,
  log: (line: string) => void = () => {},
): Promise<SeedResult> {
  const started = performance.now();
  const { db } = openDatabase(databaseUrl);
  try {
    await migrate(db);
    const existing = await db
      .selectFrom("users")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirst();
    if (Number(existing?.n ?? 0) > 0) throw new Error("the database already has accounts: the seed fills empty ones");
  } finally {
    await db.destroy();
  }
  // A handful of hashes, each computed once and shared: a million argon2id runs would take hours.
  const hashes = await Promise.all(SEED_PASSWORDS.map((password) => hashPassword(password)));
  const tables = seedTables(population(accounts, hashes));
  const rows = databaseUrl.startsWith("sqlite:")
    ? writeSqlite(databaseUrl.slice("sqlite:".length), tables, accounts, log)
    : await (await import("./seed/postgres.ts")).writePostgres(databaseUrl, tables, accounts, log);
  return { databaseUrl, rows, seconds: (performance.now() - started) / 1000 };
}

/** The database's address with its password hidden, for the console. */
const describe = (url: string) => url.replace(/\/\/([^:@/]+):[^@/]*@/u, "//$1:***@");

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      accounts: { type: "string", default: "10000" },
      database: { type: "string" },
      postgres: { type: "boolean", default: false },
    },
  });
  const accounts = Number(values.accounts);
  if (!Number.isInteger(accounts) || accounts < 1) throw new Error("--accounts takes a positive whole number");
  const postgres = values.postgres
    ? await (await import("../packages/server/test/postgres.ts")).startPostgres({ stopAtExit: true })
    : undefined;
  const databaseUrl =
    values.database ?? postgres?.url ?? `sqlite:${join(mkdtempSync(join(tmpdir(), "gatehouse-seed-")), "seed.db")}`;
  console.log(`Seeding ${accounts.toLocaleString("en")} accounts into ${describe(databaseUrl)}`);
  const result = await seedDatabase(databaseUrl, accounts, console.log);
  const total = Object.values(result.rows).reduce((sum, n) => sum + n, 0);
  const cpu = process.cpuUsage();
  console.log(
    `Done: ${total.toLocaleString("en")} rows in ${result.seconds.toFixed(1)} s (${rate(total, result.seconds)}, migrations and indexes included; this process's CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s)`,
  );
  console.log(`Database: ${postgres ? postgres.url : databaseUrl}`);
  console.log(`Accounts: seed-<i>@example.{com,org,net} by i % 3; passwords in scripts/seed/rows.ts (SEED_PASSWORDS)`);
  if (postgres) {
    console.log("The embedded PostgreSQL keeps running for use; Ctrl-C stops it and removes its files.");
    await new Promise<void>((resolve) => process.once("SIGINT", resolve));
    await postgres.stop();
  }
}

if (import.meta.main) {
  try {
    await main();
    process.exit(0);
  } catch (error) {
    console.error(error);
    process.exit(1);
  }
}
