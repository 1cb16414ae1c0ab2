import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject } from "vitest";
import { type App, buildApp } from "../src/app.ts";
import { type Config, loadConfig } from "../src/config.ts";
import { type Db, migrate, openDatabase } from "../src/store/db.ts";
import { type Answer, Client } from "./client.ts";
import { createDatabase } from "./postgres.ts";
import { type MailWanted, type ReceivedMail, TestSmtp } from "./smtp.ts";

export { type Answer, Client } from "./client.ts";

/** A page template like the built SPA's, so host-page tests do not depend on a web build. */
export const TEST_TEMPLATE =
  '<!doctype html><html lang="en"><head><title>x</title><!--gatehouse-settings--></head><body><div id="root"></div></body></html>';

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "gatehouse-test-"));
}

/** The databases a server test can run on. */
export type DatabaseName = "SQLite" | "PostgreSQL";

declare module "vitest" {
  export interface ProvidedContext {
    /** The databases this lane tests (vitest.config.ts): the fast lane SQLite, the integration lane PostgreSQL. */
    databases: DatabaseName[];
  }
}

/**
 * `describe.each` over rows that each start with a database's name, keeping only the rows of the lane's databases:
 * `npm run test:fast` runs the SQLite halves (no PostgreSQL started), `npm run test:integration` the PostgreSQL
 * halves, so each half runs once in `npm test`. A block for one database names it alone (`[["SQLite"]]`); in a
 * file with PostgreSQL halves every top-level block goes through here, so the integration lane repeats none.
 */
export function describeDatabases(rows: [DatabaseName, Database][]): DescribeEach<Database>;
export function describeDatabases(rows: [DatabaseName, OptionalDatabase][]): DescribeEach<OptionalDatabase>;
export function describeDatabases(rows: [DatabaseName][]): DescribeEach<undefined>;
export function describeDatabases(rows: [DatabaseName, unknown?][]): DescribeEach<unknown> {
  const lane = inject("databases") ?? ["SQLite", "PostgreSQL"];
  const kept = rows.filter(([name]) => lane.includes(name));
  return (title, body) => describe.each(kept)(title, (name, database) => body(name, database));
}

/** A row's database: the URL of a fresh one (or, optionally, undefined for startServer's own SQLite file). */
type Database = () => Promise<string>;
type OptionalDatabase = () => Promise<string | undefined>;
type DescribeEach<T> = (title: string, body: (name: DatabaseName, database: T) => void) => void;

/** A fresh, empty PostgreSQL database on the run's server. */
export function freshPostgres(): Promise<string> {
  const url = inject("postgresUrl");
  // The fast lane starts no PostgreSQL: a PostgreSQL half belongs in describeDatabases (or the file in INTEGRATION).
  if (!url) throw new Error("no PostgreSQL in this lane: put the block in describeDatabases (vitest.config.ts)");
  return createDatabase(url);
}

/** Two nodes' connections to one database, for tests of what nodes share (the queue's lease, the workers). */
export interface TwoNodes {
  db: Db;
  other: Db;
  close(): Promise<void>;
}

/**
 * Migrates the database and opens the second node's connection: on PostgreSQL a pool of its own; on SQLite the same
 * connection (two SQLite connections in one process would deadlock; tests of separate processes use child ones).
 */
export async function twoNodes(databaseUrl: string): Promise<TwoNodes> {
  const { db, kind } = openDatabase(databaseUrl);
  await migrate(db);
  const other = kind === "sqlite" ? db : openDatabase(databaseUrl).db;
  return {
    db,
    other,
    async close() {
      if (other !== db) await other.destroy();
      await db.destroy();
    },
  };
}

export interface TestServer {
  app: App;
  url: string;
  config: Config;
  close: () => Promise<void>;
}

/** Starts the real app over HTTP on a temp SQLite file (or the given database), as STYLE.md §7 asks. */
export async function startServer(
  options: {
    databaseUrl?: string;
    env?: Record<string, string>;
    port?: number;
    /** buildApp's options besides the logger (e.g. the job worker's intervals). */
    app?: Omit<NonNullable<Parameters<typeof buildApp>[1]>, "logger">;
  } = {},
): Promise<TestServer> {
  const dir = tempDir();
  const web = join(dir, "web");
  mkdirSync(web);
  writeFileSync(join(web, "index.html"), TEST_TEMPLATE);
  const config = loadConfig({
    NODE_ENV: "test",
    DATABASE_URL: options.databaseUrl ?? `sqlite:${join(dir, "gatehouse.db")}`,
    SESSION_SECRET: "test-secret-that-is-long-enough-123456",
    LOG_LEVEL: "silent",
    PUBLIC_URL: "http://localhost:8080",
    WEB_DIST: web,
    ...options.env,
  });
  const app = await buildApp(config, { ...options.app, logger: false });
  await app.listen({ port: options.port ?? 0, host: "127.0.0.1" });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return { app, url: `http://127.0.0.1:${port}`, config, close: () => app.close() };
}

/**
 * The fields of a registration (POST /api/account/register) for `email`: Ann Lee of Germany, no newsletter, a
 * password the policy takes; `extra` adds or replaces fields. The bot check or captcha is the caller's to add.
 */
export function registrationBody(email: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    email,
    password: "Tr0ub4dor&3x",
    firstName: "Ann",
    lastName: "Lee",
    countryCode: "de",
    newsletterSubscription: false,
    ...extra,
  };
}

/** Asserts the spec §3 error object shape and returns it. */
export function expectErrorObject(answer: Answer, status: number, code: string) {
  const body = answer.json;
  if (answer.status !== status || body?.error_code !== code) {
    throw new Error(`expected ${status} ${code}, got ${answer.status} ${answer.text}`);
  }
  for (const key of ["HTTPStatus", "message", "guid", "error_code", "error_message", "error_guid"]) {
    if (!(key in body)) throw new Error(`error object lacks ${key}: ${answer.text}`);
  }
  if (body.guid !== body.error_guid || body.HTTPStatus !== status)
    throw new Error(`inconsistent error object ${answer.text}`);
  return body;
}

export interface MailServer {
  server: TestServer;
  smtp: TestSmtp;
}

/**
 * For a test file or a describe block: a real SMTP server on loopback and a Gatehouse that mails through it,
 * behind a trusted proxy so each test client can come from its own address; on SQLite unless `database` names
 * another database.
 */
export function useMailServer(database: () => Promise<string | undefined> = async () => undefined): MailServer {
  const fixture = {} as MailServer;
  beforeAll(async () => {
    fixture.smtp = await new TestSmtp().start();
    const databaseUrl = await database();
    fixture.server = await startServer({
      env: { SMTP_URL: fixture.smtp.url, TRUST_PROXY: "true", ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) },
    });
  });
  afterAll(async () => {
    await fixture.server?.close();
    await fixture.smtp?.stop();
  });
  return fixture;
}

/**
 * The race tests' set-up: `count` instances of the app on one database (nodes behind a load balancer), started by
 * `start` in turn before the first test of the block (each told those started before it) and closed after its last.
 * `browser(i)` is a client of its own address (each under the per-address limits; TRUST_PROXY) on instance `i % count`.
 */
export function useInstances<Instance extends { url: string; close(): Promise<void> }>(
  database: () => Promise<string>,
  start: (databaseUrl: string, started: Instance[]) => Promise<Instance>,
  count = 2,
) {
  const instances: Instance[] = [];
  let ip = 0;
  beforeAll(async () => {
    const databaseUrl = await database();
    for (let i = 0; i < count; i++) instances.push(await start(databaseUrl, instances));
  });
  afterAll(async () => {
    for (const instance of instances) await instance.close();
  });
  const browser = (i: number) => {
    ip += 1;
    const address = `198.18.${ip >> 8}.${ip % 256}`;
    return new Client((instances[i % count] as Instance).url, { "x-forwarded-for": address }).start();
  };
  return { instances, browser };
}

/**
 * A mail the server sends to `address` (TestSmtp.waitFor's `wanted`): its mail worker runs once first, so the test
 * waits for the mail rather than for the worker's next turn.
 */
export async function mailTo(
  { server, smtp }: MailServer,
  address: string,
  wanted: MailWanted = {},
): Promise<ReceivedMail> {
  await server.app.services.mail.runOnce();
  return smtp.waitFor(address, wanted);
}

/**
 * "Same timing within noise" (ASVS 6.3.8) for a call about an address: for each known and unknown address,
 * interleaved so load hits both alike, `prepare` makes the call ready (a client, its CSRF token) and only the
 * call it returns is timed; the medians must be within a factor of two of each other.
 */
export async function expectSameTiming(
  prepare: (email: string) => Promise<() => Promise<unknown>>,
  known: readonly string[],
  unknown: readonly string[],
): Promise<void> {
  const time = async (email: string) => {
    const call = await prepare(email);
    const start = performance.now();
    await call();
    return performance.now() - start;
  };
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  const knownTimes: number[] = [];
  const unknownTimes: number[] = [];
  for (let i = 0; i < Math.min(known.length, unknown.length); i++) {
    knownTimes.push(await time(known[i] as string));
    unknownTimes.push(await time(unknown[i] as string));
  }
  const ratio = median(knownTimes) / median(unknownTimes);
  expect(ratio).toBeGreaterThan(0.5);
  expect(ratio).toBeLessThan(2);
}
