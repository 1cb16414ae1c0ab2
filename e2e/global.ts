import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { finished } from "node:stream/promises";
import type { TestProject } from "vitest/node";
import { freePort } from "../packages/server/test/ports.ts";
import { createDatabase, startPostgres } from "../packages/server/test/postgres.ts";
import {
  configuredSecrets,
  describeFindings,
  keepOutboxCodes,
  STDERR_FILE,
  STDOUT_FILE,
  scanRun,
  writeServiceRecord,
} from "./log-scan.ts";
import { newRun, setRun, theRun } from "./run.ts";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    databaseUrl: string;
  }
}

/**
 * The browser is Debian's Chromium: its headless shell when installed (package chromium-headless-shell, built from
 * the same source at the same version, without the desktop browser's profile services), else `/usr/bin/chromium`.
 * The shell opens a fresh browser context for a seventh of the CPU and runs the suite in about 60% of the time
 * (docs/decisions.md); `E2E_CHROMIUM` names either binary (or another) for one run.
 */
const HEADLESS_SHELL = "/usr/bin/chromium-headless-shell";
/** The desktop browser itself, for what the shell leaves out: the back/forward cache. */
export const FULL_CHROMIUM = "/usr/bin/chromium";
export const CHROMIUM = process.env.E2E_CHROMIUM || (existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : FULL_CHROMIUM);
const ROOT = resolve(import.meta.dirname, "..");
const DATABASES = ["sqlite", "postgres"] as const;

/**
 * Node's compile cache for the processes the run starts (each service, each admin CLI call), where `npm start` keeps
 * it: a process then starts on about half the CPU, and a run starts hundreds.
 */
export const COMPILE_CACHE = {
  NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE || join(ROOT, "node_modules/.cache/node-compile"),
};

/**
 * Starts the real service the way `npm start` does (built SPA, dev mailbox) on a free port, on a fresh SQLite file,
 * or with E2E_DATABASE=postgres on a fresh database of a PostgreSQL server the run starts. It never skips: without
 * Chromium or the web build the run fails (issue #2: browser tests must not skip under CI). At the end it scans
 * every log line of every service the run started for secrets (log-scan.ts) and fails the run on any.
 */
export default async function setup(project: TestProject) {
  for (const browser of new Set([CHROMIUM, FULL_CHROMIUM]))
    if (!existsSync(browser)) throw new Error(`${browser} is missing: install Debian's chromium (see .ci/run)`);
  if (!existsSync(join(ROOT, "packages/web/dist/index.html")))
    throw new Error("the web app is not built: run npm run build");
  const database = process.env.E2E_DATABASE || "sqlite";
  if (!(DATABASES as readonly string[]).includes(database))
    throw new Error(`E2E_DATABASE must be one of ${DATABASES.join(", ")}, not ${database}`);
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-e2e-"));
  const postgres = database === "postgres" ? await startPostgres() : undefined;
  let service: Service;
  try {
    const run = newRun(dir, postgres?.url);
    setRun(run);
    project.provide("e2eRun", run);
    service = await startService();
  } catch (error) {
    await postgres?.stop();
    throw error;
  }
  project.provide("baseUrl", service.baseUrl);
  project.provide("databaseUrl", service.databaseUrl);
  return async () => {
    try {
      await service.stop();
      await scanLogs(dir);
    } finally {
      await postgres?.stop();
    }
  };
}

/** The log scan at the end of the run; the run's folder stays for a look when it finds something. */
async function scanLogs(dir: string): Promise<void> {
  const result = await scanRun(dir);
  if (result.findings.length === 0) {
    console.log(
      `Log scan: ${result.lines} log lines of ${result.services} services, ${result.secrets} secrets looked for: clean.`,
    );
    rmSync(dir, { recursive: true, force: true });
    return;
  }
  console.error(`${describeFindings(result)}\nThe logs are kept in ${dir}.`);
  // Vitest reports an error thrown by a global teardown but still exits with 0: the exit code is what fails CI.
  process.exitCode = 1;
}

export interface Service {
  baseUrl: string;
  databaseUrl: string;
  stop: () => Promise<void>;
  /** The process, for a test that signals it (the fake clock: `e2e/clock.ts`). */
  pid: number | undefined;
}

/**
 * One Gatehouse process on a fresh database (a SQLite file, or a new database on the run's PostgreSQL) and a free
 * port, with extra environment (e.g. SMTP_URL). The port comes from the kernel; if another process takes it before
 * the server binds, the server exits and we try again.
 */
/** `port`: a port chosen beforehand, when another program must know the service's address before it starts. */
export async function startService(env: Record<string, string> = {}, port?: number): Promise<Service> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(port ?? (await freePort()), env);
    } catch (error) {
      if (!(error instanceof ServerExited) || attempt === 3 || port !== undefined) throw error;
    }
  }
}

class ServerExited extends Error {}

/**
 * The environment every service of the run gets, and the admin CLI with it (support.ts `adminWith`): on
 * PostgreSQL the run's SESSION_SECRET, which a SQLite service instead makes and keeps beside its file.
 */
export function runEnvironment(): Record<string, string> {
  const { postgres } = theRun();
  return postgres ? { SESSION_SECRET: postgres.sessionSecret } : {};
}

async function startOnce(port: number, env: Record<string, string>): Promise<Service> {
  const run = theRun();
  const dir = mkdtempSync(join(run.dir, "service-"));
  const baseUrl = `http://localhost:${port}`;
  // A test may bring its own database (another service's, or a PostgreSQL it stops and starts).
  const databaseUrl =
    env.DATABASE_URL ??
    (run.postgres ? await createDatabase(run.postgres.adminUrl) : `sqlite:${join(dir, "gatehouse.db")}`);
  const serviceEnv = {
    NODE_ENV: "test",
    PORT: String(port),
    HOST: "127.0.0.1",
    PUBLIC_URL: baseUrl,
    DATABASE_URL: databaseUrl,
    // Info, as in production: the log scan reads every request line (E2E_LOG_LEVEL=debug for more).
    LOG_LEVEL: process.env.E2E_LOG_LEVEL || "info",
    TRUST_PROXY: "true",
    ...runEnvironment(),
    ...env,
  };
  const label = `gatehouse :${port}`;
  writeServiceRecord(dir, { label, databaseUrl, secrets: configuredSecrets(serviceEnv) });
  const server: ChildProcess = spawn(process.execPath, [join(ROOT, "packages/server/src/main.ts")], {
    cwd: ROOT,
    env: { ...process.env, ...COMPILE_CACHE, ...serviceEnv },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const logged = Promise.all([
    keepLog(server.stdout as Readable, join(dir, STDOUT_FILE), label, true),
    keepLog(server.stderr as Readable, join(dir, STDERR_FILE), label, false),
  ]);
  await waitFor(`${baseUrl}/readyz`, server);
  return {
    baseUrl,
    databaseUrl,
    pid: server.pid,
    stop: async () => {
      if (server.exitCode === null && server.signalCode === null) {
        server.kill("SIGTERM");
        await new Promise((done) => server.once("exit", done));
      }
      // Every line the service wrote is in its log file before the scan reads it.
      await logged;
      // Left to the scan when it cannot be read now (the scan then says so).
      await keepOutboxCodes(dir, databaseUrl).catch(() => undefined);
    },
  };
}

/**
 * Writes a service's output to its log file, and echoes to the console what a person running the tests must see:
 * warnings and errors of the JSON log (pino level 40 and up), anything on it that is not JSON, and all of stderr.
 */
function keepLog(stream: Readable, file: string, label: string, structured: boolean): Promise<void> {
  const out = createWriteStream(file, { flags: "a" });
  stream.pipe(out);
  createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }).on("line", (line) => {
    if (!structured || loud(line)) process.stderr.write(`[${label}] ${line}\n`);
  });
  return finished(out);
}

function loud(line: string): boolean {
  try {
    const { level } = JSON.parse(line) as { level?: unknown };
    return typeof level !== "number" || level >= 40;
  } catch {
    return true;
  }
}

async function waitFor(url: string, server: ChildProcess) {
  // Generous: two browser lanes run side by side in CI (.ci/run), and a start under load has taken over 30 s.
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new ServerExited(`the server exited with ${server.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the server did not become ready at ${url}`);
}
