/**
 * Gatehouse nodes as separate processes (issue #14): each is `packages/server/src/main.ts` in its own Node, as a
 * production node runs, so nothing one node keeps in memory can help another. Tests share a database between them
 * and talk to each over loopback.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { TEST_TEMPLATE, tempDir } from "./harness.ts";
import { freePort } from "./ports.ts";

const ROOT = resolve(import.meta.dirname, "../../..");
const MAIN = join(ROOT, "packages/server/src/main.ts");
const ADMIN = join(ROOT, "packages/server/src/admin/cli.ts");
/** The wall-clock shifter of the browser tests (`e2e/fake-clock.ts`): only `Date` moves, timers run as usual. */
const FAKE_CLOCK = join(ROOT, "e2e/fake-clock.ts");

export const NODE_SECRET = "a-secret-all-nodes-share-and-long-enough";

export interface GatehouseNode {
  url: string;
  pid: number;
  /** The process's log (JSON lines), for a failure's message. */
  log: () => string;
  /** SIGTERM, and wait for the exit. */
  stop: () => Promise<void>;
  /** SIGKILL: no shutdown, no goodbye (a crashed machine). */
  kill: () => Promise<void>;
  alive: () => boolean;
  /** Moves this node's wall clock forward (only for a node started with `clock: true`). */
  advance: (ms: number) => Promise<void>;
}

/** Starts one node on a free port with the environment given (DATABASE_URL at least) and waits until it is ready. */
export async function startNode(
  env: Record<string, string>,
  options: { clock?: boolean } = {},
): Promise<GatehouseNode> {
  const dir = tempDir();
  const web = join(dir, "web");
  mkdirSync(web);
  writeFileSync(join(web, "index.html"), TEST_TEMPLATE);
  const clockFile = join(dir, "clock");
  writeFileSync(clockFile, "0");
  const logFile = join(dir, "node.log");
  const out = openSync(logFile, "a");
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [...(options.clock ? ["--import", FAKE_CLOCK] : []), MAIN], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      NODE_ENV: "test",
      PORT: String(port),
      HOST: "127.0.0.1",
      PUBLIC_URL: "http://localhost:8080",
      SESSION_SECRET: NODE_SECRET,
      LOG_LEVEL: "info",
      WEB_DIST: web,
      FAKE_CLOCK_FILE: clockFile,
      ...env,
    },
    stdio: ["ignore", out, out],
  });
  const log = () => readFileSync(logFile, "utf8");
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  const alive = () => child.exitCode === null && child.signalCode === null;
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (!alive()) throw new Error(`the node exited while starting:\n${log()}`);
    if (Date.now() > deadline) throw new Error(`the node did not become ready:\n${log()}`);
    if (
      await fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await new Promise((r) => setTimeout(r, 100));
  }
  let offset = 0;
  return {
    url,
    pid: child.pid as number,
    log,
    alive,
    stop: async () => {
      if (!alive()) return;
      child.kill("SIGTERM");
      await exited;
    },
    kill: async () => {
      if (!alive()) return;
      child.kill("SIGKILL");
      await exited;
    },
    advance: async (ms) => {
      if (!options.clock) throw new Error("this node was started without a movable clock");
      offset += ms;
      writeFileSync(clockFile, String(offset));
      child.kill("SIGUSR2");
      await new Promise((r) => setTimeout(r, 200));
    },
  };
}

/** Runs the admin command line on a database, as an operator would; throws with its output when it fails. */
export function admin(databaseUrl: string, ...args: string[]): string {
  const result = spawnSync(process.execPath, [ADMIN, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, NODE_ENV: "test", DATABASE_URL: databaseUrl, SESSION_SECRET: NODE_SECRET },
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`admin ${args.join(" ")} failed:\n${result.stdout}${result.stderr}`);
  return result.stdout;
}
