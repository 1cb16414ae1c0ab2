import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { FastifyBaseLogger } from "fastify";
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

/**
 * Issue #28: a session's timeouts (config.ts `database`). PostgreSQL's are set on every connection of the pool at
 * its start, so no statement of a request waits longer than `statementTimeoutMs` nor for a lock longer than
 * `lockTimeoutMs`, and the request answers 503 rather than hangs; SQLite waits `busyTimeoutMs` for another writer.
 * Omitted, PostgreSQL has none and SQLite waits 5 s (scripts, test fixtures).
 */
export interface SessionTimeouts {
  statementTimeoutMs?: number;
  lockTimeoutMs?: number;
  busyTimeoutMs?: number;
}

/** Opens the database named by DATABASE_URL: `sqlite:<path>` (or `sqlite::memory:`) or `postgres://…`. */
export function openDatabase(url: string, timeouts: SessionTimeouts = {}): OpenDatabase {
  if (url.startsWith("postgres://") || url.startsWith("postgresql://")) {
    const pool = new pg.Pool({
      connectionString: url,
      max: 10,
      // Sent in the start-up packet: every connection has them before its first query, and RESET returns to them.
      ...(timeouts.statementTimeoutMs ? { statement_timeout: timeouts.statementTimeoutMs } : {}),
      ...(timeouts.lockTimeoutMs ? { lock_timeout: timeouts.lockTimeoutMs } : {}),
      // A database that does not answer (a failover under way, a network partition) fails a request within 5 s
      // rather than holding it and its client until the balancer gives up (issue #14).
      connectionTimeoutMillis: 5_000,
      keepAlive: true,
    });
    // A connection the server drops while it waits in the pool (a restart: 57P01 "terminating connection due to
    // administrator command") is an `error` event on the pool; unhandled, it would end the process (issue #14). The
    // pool has already discarded that client and opens a new one on the next query. The app also logs it.
    pool.on("error", () => {});
    // One ended while checked out emits `error` on its client, where the pool listens only while it is idle: every
    // client gets a listener of its own as it opens, or one opened before the app listened (the migrations' at
    // start-up) ends the process when the database restarts under a request holding it. Its query fails (503).
    pool.on("connect", (client) => client.on("error", () => {}));
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    kinds.set(db, "postgres");
    return { db, kind: "postgres", pool };
  }
  const path = url.slice("sqlite:".length);
  if (path !== ":memory:") mkdirSync(dirname(resolve(path)), { recursive: true });
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database: openSqlite(path, timeouts.busyTimeoutMs) }),
  });
  kinds.set(db, "sqlite");
  return { db, kind: "sqlite" };
}

/** Which database an opened `Db` is (not a transaction object: those are found by the database they came from). */
export function kindOf(db: Db): DbKind | undefined {
  return kinds.get(db);
}

/** How long `exclusively` waits for another node's turn. */
const TURN_WAIT_MS = 60_000;

/**
 * Runs `work` in one transaction that no other node runs at the same time, for a read-then-write that rows alone
 * cannot settle (nothing to lock exists yet, e.g. the first signing keys). On PostgreSQL it holds a transaction
 * advisory lock named by `name` until it commits, so several nodes starting together take turns and each sees what
 * the one before wrote; SQLite serves one node (several need PostgreSQL), and its transaction is enough there.
 */
export async function exclusively<T>(db: Db, name: string, work: (trx: Db) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    if (kinds.get(db) === "postgres") {
      // Waiting for the other node's turn (making RSA keys on a busy machine) is expected: this transaction waits up
      // to TURN_WAIT_MS for it, not a request's statement and lock timeouts (issue #28); `local` ends with the transaction.
      await sql`select set_config('lock_timeout', ${`${TURN_WAIT_MS}ms`}, true), set_config('statement_timeout', ${`${TURN_WAIT_MS}ms`}, true)`.execute(
        trx,
      );
      await sql`select pg_advisory_xact_lock(hashtext(${`gatehouse:${name}`}))`.execute(trx);
    }
    return work(trx);
  });
}

/**
 * SQLSTATE classes and codes that mean "the database is not there right now", as opposed to a statement that failed:
 * 08 connection exception, 57P01-57P03 shutdown/crash/starting up, 53300 too many connections.
 */
const UNAVAILABLE_STATES = /^(08...|57P0[123]|53300)$/u;
/**
 * Issue #28: the database there but too busy to answer in time: 57014 query_canceled (statement_timeout), 55P03
 * lock_not_available (lock_timeout). Worth a retry in a moment too, never a hang nor a 500.
 */
const BUSY_STATES = new Set(["57014", "55P03"]);
/** SQLite's SQLITE_BUSY (5) and SQLITE_LOCKED (6), with their extended codes: another writer held on past the busy timeout. */
const SQLITE_BUSY_CODES = new Set([5, 6]);
/** What Node and pg say when there is no connection at all. */
const UNAVAILABLE_ERRNOS = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);
const UNAVAILABLE_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/u;

/**
 * True when an error (or one of its causes) says the database could not be reached, or did not answer within its
 * statement, lock or busy timeout, so the request is worth repeating in a moment (503 with Retry-After) rather than
 * a fault of ours (500).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && (UNAVAILABLE_STATES.test(code) || UNAVAILABLE_ERRNOS.has(code))) return true;
    if (typeof code === "string" && BUSY_STATES.has(code)) return true;
    const errcode = (e as { errcode?: unknown }).errcode;
    if (code === "ERR_SQLITE_ERROR" && typeof errcode === "number" && SQLITE_BUSY_CODES.has(errcode & 0xff))
      return true;
    if (UNAVAILABLE_MESSAGES.test(e.message)) return true;
    if (e instanceof AggregateError && e.errors.some(isDatabaseUnavailable)) return true;
  }
  return false;
}

/**
 * Logs a failure: the database away (a restart, a failover) is waited out, a warning with its message (issue #14);
 * anything else is an error with its stack. `fields` go on either line; the warning says `unavailable`, by default
 * `failed` followed by ": database unavailable". Answers whether the database was away.
 */
export function logFailure(
  log: FastifyBaseLogger,
  err: unknown,
  failed: string,
  options: { fields?: Record<string, unknown>; unavailable?: string } = {},
): boolean {
  if (!isDatabaseUnavailable(err)) {
    log.error({ err, ...options.fields }, failed);
    return false;
  }
  log.warn(
    { detail: err instanceof Error ? err.message : String(err), ...options.fields },
    options.unavailable ?? `${failed}: database unavailable`,
  );
  return true;
}

/** The migrations the database has run, by name; none when it has never been migrated. */
async function appliedMigrations(db: Db): Promise<string[]> {
  try {
    const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
    return rows.map((row) => row.name);
  } catch (error) {
    // A new database: PostgreSQL's undefined_table, SQLite's "no such table".
    const code = (error as { code?: unknown }).code;
    if (code === "42P01" || /no such table/u.test(String((error as Error).message))) return [];
    throw error;
  }
}

/**
 * Brings the schema to the newest migration, and returns the names of migrations the database has that this
 * release does not know: during a rolling upgrade the newer release migrates first, and a node of the older one that
 * starts (or restarts) then must still run, which it can because migrations only add (docs/operations.md,
 * "Upgrades"). Kysely's migrator would refuse it ("corrupted migrations"), so such a database is left as it is when
 * it already has every migration of this release; one that lacks some of ours and has others we do not know is not a
 * database this release can run on, and that throws.
 */
export async function migrate(db: Db, timeouts: SessionTimeouts = {}): Promise<string[]> {
  if (kinds.get(db) !== "postgres" || (!timeouts.statementTimeoutMs && !timeouts.lockTimeoutMs)) return migrateOn(db);
  // Issue #28: migrations build indexes on large tables, which the requests' few seconds would cancel: they run on
  // one connection under their own (longer) timeouts, which RESET returns to the pool's afterwards.
  return db.connection().execute(async (connection) => {
    await sql`select set_config('statement_timeout', ${String(timeouts.statementTimeoutMs ?? 0)}, false), set_config('lock_timeout', ${String(timeouts.lockTimeoutMs ?? 0)}, false)`.execute(
      connection,
    );
    try {
      return await migrateOn(connection);
    } finally {
      await sql`reset statement_timeout`.execute(connection).catch(() => {});
      await sql`reset lock_timeout`.execute(connection).catch(() => {});
    }
  });
}

async function migrateOn(db: Db): Promise<string[]> {
  const known = Object.keys(await migrationProvider.getMigrations());
  const applied = await appliedMigrations(db);
  const newer = applied.filter((name) => !known.includes(name));
  if (newer.length > 0) {
    const missing = known.filter((name) => !applied.includes(name));
    if (missing.length > 0)
      throw new Error(
        `the database has migrations this release does not know (${newer.join(", ")}) and lacks some it needs (${missing.join(", ")})`,
      );
    return newer;
  }
  const { error, results } = await new Migrator({ db, provider: migrationProvider }).migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === "Error")?.migrationName ?? "unknown";
    throw new Error(`migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  return [];
}

/**
 * Readiness: the database answers a trivial query within `timeoutMs` (`Infinity`: however long it takes, for a
 * caller that shares one question between its callers and times them out itself, as the metrics do).
 */
export async function ping(db: Db, timeoutMs = 2_000): Promise<boolean> {
  if (!Number.isFinite(timeoutMs))
    return sql`select 1`.execute(db).then(
      () => true,
      () => false,
    );
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((done) => {
    timer = setTimeout(() => done(false), timeoutMs);
  });
  try {
    return await Promise.race([sql`select 1`.execute(db).then(() => true), late]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
