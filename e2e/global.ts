import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { TestProject } from "vitest/node";
import { freePort } from "../packages/server/test/ports.ts";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    databaseUrl: string;
  }
}

export const CHROMIUM = "/usr/bin/chromium";
const ROOT = resolve(import.meta.dirname, "..");

/**
 * Starts the real service the way `npm start` does (built SPA, SQLite, dev mailbox) on a free port. It never
 * skips: without Chromium or the web build the run fails (issue #2: browser tests must not skip under CI).
 */
export default async function setup(project: TestProject) {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (see .ci/run)`);
  if (!existsSync(join(ROOT, "packages/web/dist/index.html")))
    throw new Error("the web app is not built: run npm run build");
  const service = await startService();
  project.provide("baseUrl", service.baseUrl);
  project.provide("databaseUrl", service.databaseUrl);
  return service.stop;
}

export interface Service {
  baseUrl: string;
  databaseUrl: string;
  stop: () => Promise<void>;
  /** The process, for a test that signals it (the fake clock: `e2e/clock.ts`). */
  pid: number | undefined;
}

/**
 * One Gatehouse process on a fresh SQLite file and a free port, with extra environment (e.g. SMTP_URL). The port
 * comes from the kernel; if another process takes it before the server binds, the server exits and we try again.
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

async function startOnce(port: number, env: Record<string, string>): Promise<Service> {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-e2e-"));
  const baseUrl = `http://localhost:${port}`;
  const databaseUrl = `sqlite:${join(dir, "gatehouse.db")}`;
  const server: ChildProcess = spawn(process.execPath, [join(ROOT, "packages/server/src/main.ts")], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: "test",
      PORT: String(port),
      HOST: "127.0.0.1",
      PUBLIC_URL: baseUrl,
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: "warn",
      TRUST_PROXY: "true",
      ...env,
    },
    stdio: ["ignore", "inherit", "inherit"],
  });
  await waitFor(`${baseUrl}/readyz`, server);
  return {
    baseUrl,
    databaseUrl,
    pid: server.pid,
    stop: async () => {
      if (server.exitCode !== null) return;
      server.kill("SIGTERM");
      await new Promise((done) => server.once("exit", done));
    },
  };
}

async function waitFor(url: string, server: ChildProcess) {
  const deadline = Date.now() + 30_000;
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
