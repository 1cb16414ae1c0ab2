/**
 * Issue #28: a request whose statement runs past its timeout, or waits for a lock past its own, answers 503 with
 * Retry-After and the spec's error object, within about the timeout: never a hang, never a 500. Another real
 * connection holds the lock, as a long migration or a slow transaction of another node would.
 */
import { DatabaseSync } from "node:sqlite";
import { sql } from "kysely";
import pg from "pg";
import { afterEach, expect, it, vi } from "vitest";
import { createUser } from "../src/accounts/users.ts";
import { loadConfig } from "../src/config.ts";
import { ensureSigningKeys } from "../src/oidc/keys.ts";
import { migrate, openDatabase } from "../src/store/db.ts";
import { oidcKeysStore } from "../src/store/oidc-keys.ts";
import { desktopTokens } from "./desktop-sign-in.ts";
import {
  Client,
  describeDatabases,
  expectErrorObject,
  freshPostgres,
  startServer,
  type TestServer,
  tempDir,
} from "./harness.ts";

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(databaseUrl: string, env: Record<string, string>): Promise<TestServer> {
  const server = await startServer({ databaseUrl, env });
  servers.push(server);
  return server;
}

/** A sign-in attempt (it reads the account and writes its counters): the request path people wait on. */
async function signIn(server: TestServer) {
  const browser = await new Client(server.url).start();
  const started = Date.now();
  const answer = await browser.login("nobody-here@example.com", "quiet harbour lantern 42");
  return { answer, elapsedMs: Date.now() - started };
}

function expectRetryLater(result: Awaited<ReturnType<typeof signIn>>, withinMs: number) {
  const body = expectErrorObject(result.answer, 503, "service_unavailable");
  expect(body.temporary).toBe(true);
  expect(Number(result.answer.headers.get("retry-after"))).toBeGreaterThan(0);
  expect(result.elapsedMs).toBeLessThan(withinMs);
}

/** A desktop app's refresh token for a new person signed in at `server` (a real sign-in through the provider). */
async function refreshToken(server: TestServer): Promise<string> {
  const email = `${crypto.randomUUID()}@example.com`;
  const password = "quiet harbour lantern 42";
  await createUser(server.app.db, {
    email,
    password,
    firstName: "Ann",
    lastName: "Lee",
    countryCode: "DE",
    emailVerified: true,
  });
  const browser = await new Client(server.url).start();
  expect((await browser.login(email, password)).status).toBe(200);
  return (await desktopTokens(browser, [server.url], server.url, "openid offline_access api")).refresh_token;
}

/** A refresh at the provider's token endpoint, timed. */
async function refreshAt(server: TestServer, token: string) {
  const started = Date.now();
  const answer = await fetch(`${server.url}/oidc/token`, {
    method: "POST",
    body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: token, client_id: "enscape" }),
  });
  return { answer, body: (await answer.json()) as { error?: string }, elapsedMs: Date.now() - started };
}

/** The provider's endpoints answer as OAuth does: 503 `temporarily_unavailable` with Retry-After. */
function expectOAuthRetryLater(result: Awaited<ReturnType<typeof refreshAt>>, withinMs: number) {
  expect(result.answer.status).toBe(503);
  expect(result.body.error).toBe("temporarily_unavailable");
  expect(Number(result.answer.headers.get("retry-after"))).toBeGreaterThan(0);
  expect(result.elapsedMs).toBeLessThan(withinMs);
}

describeDatabases([["PostgreSQL"]])("statement and lock timeouts on %s", () => {
  /** Another session that holds every table the sign-in reads or writes until `release`. */
  async function holdTables(url: string) {
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    await holder.query("begin");
    await holder.query("lock table users, login_throttle, sign_in_attempts in access exclusive mode");
    return async () => {
      await holder.query("rollback");
      await holder.end();
    };
  }

  it.each([
    // A short lock timeout ends the wait for the lock.
    [
      "a lock is held past DATABASE_LOCK_TIMEOUT_MS",
      { DATABASE_LOCK_TIMEOUT_MS: "300", DATABASE_STATEMENT_TIMEOUT_MS: "20000" },
    ],
    // No lock timeout: the wait for the lock is a statement that runs too long.
    [
      "a statement runs past DATABASE_STATEMENT_TIMEOUT_MS",
      { DATABASE_LOCK_TIMEOUT_MS: "0", DATABASE_STATEMENT_TIMEOUT_MS: "400" },
    ],
  ])("answers 503 with Retry-After when %s", async (_when, env) => {
    const url = await freshPostgres();
    const server = await start(url, env);
    const release = await holdTables(url);
    try {
      expectRetryLater(await signIn(server), 5_000);
    } finally {
      await release();
    }
    // The lock gone, the same request is answered as usual.
    expect((await signIn(server)).answer.status).toBe(401);
  });

  it("answers a token request waiting for a lock 503 temporarily_unavailable with Retry-After", async () => {
    const url = await freshPostgres();
    const server = await start(url, { DATABASE_LOCK_TIMEOUT_MS: "300" });
    const token = await refreshToken(server);
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    await holder.query("begin");
    await holder.query("lock table oidc_models in access exclusive mode");
    try {
      expectOAuthRetryLater(await refreshAt(server, token), 5_000);
    } finally {
      await holder.query("rollback");
      await holder.end();
    }
    expect((await refreshAt(server, token)).answer.status).toBe(200);
  });

  it("gives every pooled connection the configured timeouts, and migrations their own", async () => {
    const url = await freshPostgres();
    const server = await start(url, { DATABASE_LOCK_TIMEOUT_MS: "1234", DATABASE_STATEMENT_TIMEOUT_MS: "4321" });
    // Ten at once: every connection of the pool, the one the migrations ran on among them.
    const settings = await Promise.all(
      Array.from({ length: 10 }, () =>
        sql<{ statement: string; lock: string }>`select current_setting('statement_timeout') as statement,
          current_setting('lock_timeout') as lock, pg_sleep(0.05)`
          .execute(server.app.db)
          .then(({ rows }) => ({ statement: rows[0]?.statement, lock: rows[0]?.lock })),
      ),
    );
    // The connection the migrations ran on was returned to the requests' values (RESET).
    for (const row of settings) expect(row).toEqual({ statement: "4321ms", lock: "1234ms" });
  });
});

describeDatabases([["PostgreSQL"]])("nodes taking turns (the first signing keys) on %s", () => {
  it("wait for the other node's turn longer than a request's statement and lock timeouts", async () => {
    const url = await freshPostgres();
    const { db } = openDatabase(url, { statementTimeoutMs: 200, lockTimeoutMs: 100 });
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    try {
      await migrate(db);
      // Another node's turn: it holds the lock while it makes its keys.
      await holder.query("begin");
      await holder.query("select pg_advisory_xact_lock(hashtext('gatehouse:signing-keys'))");
      const ensuring = ensureSigningKeys(db, "a-session-secret-for-the-turns-test-123");
      // Still waiting well past both timeouts of this node's requests.
      await vi.waitFor(
        async () => {
          const { rows } = await holder.query(
            "select count(*)::int as n from pg_locks l join pg_stat_activity a using (pid) where l.locktype = 'advisory' and not l.granted and clock_timestamp() - a.query_start > interval '600 ms'",
          );
          expect(rows[0].n).toBe(1);
        },
        { timeout: 10_000, interval: 50 },
      );
      await holder.query("rollback");
      await ensuring;
      expect(await oidcKeysStore.all(db)).toHaveLength(4);
    } finally {
      await holder.end();
      await db.destroy();
    }
  });
});

describeDatabases([["SQLite"]])("the busy timeout of %s", () => {
  it("answers 503 with Retry-After when another connection holds a write past SQLITE_BUSY_TIMEOUT_MS", async () => {
    const file = `${tempDir()}/busy.db`;
    const server = await start(`sqlite:${file}`, { SQLITE_BUSY_TIMEOUT_MS: "200" });
    // A second connection to the same file, as the admin CLI or a script would open, holds a write transaction.
    const holder = new DatabaseSync(file, { timeout: 0 });
    holder.exec("begin immediate");
    try {
      expectRetryLater(await signIn(server), 5_000);
    } finally {
      holder.exec("rollback");
      holder.close();
    }
    expect((await signIn(server)).answer.status).toBe(401);
  });

  it("answers a token request blocked past it 503 temporarily_unavailable with Retry-After", async () => {
    const file = `${tempDir()}/busy-token.db`;
    const server = await start(`sqlite:${file}`, { SQLITE_BUSY_TIMEOUT_MS: "200" });
    const token = await refreshToken(server);
    const holder = new DatabaseSync(file, { timeout: 0 });
    holder.exec("begin immediate");
    try {
      expectOAuthRetryLater(await refreshAt(server, token), 5_000);
    } finally {
      holder.exec("rollback");
      holder.close();
    }
    expect((await refreshAt(server, token)).answer.status).toBe(200);
  });
});

describeDatabases([["SQLite"]])("the timeouts' configuration", () => {
  const base = { NODE_ENV: "test", SESSION_SECRET: "test-secret-that-is-long-enough-123456" };

  it("defaults to a few seconds for requests and longer for migrations and the admin command line", () => {
    const config = loadConfig(base);
    expect(config.database.requests).toEqual({ statementTimeoutMs: 5_000, lockTimeoutMs: 2_000, busyTimeoutMs: 5_000 });
    expect(config.database.admin).toEqual({
      statementTimeoutMs: 600_000,
      lockTimeoutMs: 30_000,
      busyTimeoutMs: 30_000,
    });
    expect(config.signingKeysRefreshMs).toBe(30_000);
  });

  it("refuses values that are not whole milliseconds, and a key pickup slower than a minute", () => {
    expect(() => loadConfig({ ...base, DATABASE_STATEMENT_TIMEOUT_MS: "soon" })).toThrow(
      /DATABASE_STATEMENT_TIMEOUT_MS/u,
    );
    expect(() => loadConfig({ ...base, DATABASE_LOCK_TIMEOUT_MS: "-1" })).toThrow(/DATABASE_LOCK_TIMEOUT_MS/u);
    expect(() => loadConfig({ ...base, SIGNING_KEYS_REFRESH_S: "61" })).toThrow(/SIGNING_KEYS_REFRESH_S/u);
  });
});
