import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { defineConfig } from "vitest/config";

const SERVER_TESTS = join(import.meta.dirname, "packages/server/test");

/**
 * The server tests that are integration through and through: several nodes or processes, the container image,
 * faults, the race tests' pools and PostgreSQL-only migrations. They run in the integration lane only.
 */
const INTEGRATION = [
  "faults",
  "image",
  "migration-010",
  "nodes",
  "queue-takeover",
  "races",
  "races-http",
  "races-queues",
  "races-startup",
].map((name) => `test/${name}.test.ts`);

/** The server test files whose text holds `needle`. */
const serverTestsWith = (needle: string) =>
  readdirSync(SERVER_TESTS)
    .filter((file) => file.endsWith(".test.ts") && readFileSync(join(SERVER_TESTS, file), "utf8").includes(needle))
    .map((file) => `test/${file}`);

/** The server test files with PostgreSQL halves (describeDatabases in test/harness.ts): both lanes run them. */
const WITH_POSTGRES_HALVES = serverTestsWith('["PostgreSQL"');

/** Files that replace a module (vi.mock) need a module graph of their own, so they run isolated. */
const MOCKING = serverTestsWith("vi.mock(");

/**
 * The fast lane's SQLite files live on tmpfs: an in-memory database (`sqlite::memory:`) belongs to one connection,
 * and many tests open the same database a second time (the admin CLI, a second instance, a restart).
 */
const RAM_DISK = existsSync("/dev/shm") ? { TMPDIR: "/dev/shm" } : {};

const SERVER = { root: "packages/server", testTimeout: 20_000, hookTimeout: 60_000 };

export default defineConfig({
  test: {
    // Vitest's default is one worker per core less one: a single worker on a 2-core machine, which then waits on
    // the network and the clock as often as it computes. One per core; more made the timing tests
    // (expectSameTiming) fail under load.
    maxWorkers: 2,
    projects: [
      { test: { name: "contract", root: "packages/contract", include: ["test/**/*.test.ts"] } },
      {
        test: {
          ...SERVER,
          // The fast lane (`npm run test:fast`): SQLite halves only, no PostgreSQL server started.
          name: "server",
          // One module graph per worker rather than per file: importing the app again for every file cost more
          // than its tests. A file that mocks a module (vi.mock) runs isolated below.
          isolate: false,
          include: ["test/**/*.test.ts"],
          exclude: [...INTEGRATION, ...MOCKING],
          provide: { databases: ["SQLite"] },
          env: RAM_DISK,
        },
      },
      {
        test: {
          ...SERVER,
          // The fast lane's files that mock a module, each in a module graph of its own.
          name: "server-mocking",
          include: MOCKING.filter((file) => !INTEGRATION.includes(file)),
          provide: { databases: ["SQLite"] },
          env: RAM_DISK,
        },
      },
      {
        test: {
          ...SERVER,
          // The integration lane (`npm run test:integration`): the PostgreSQL halves and the integration files.
          name: "integration",
          include: [...INTEGRATION, ...WITH_POSTGRES_HALVES],
          globalSetup: ["test/postgres.global.ts"],
          provide: { databases: ["PostgreSQL"] },
        },
      },
      { test: { name: "web", root: "packages/web", include: ["test/**/*.test.ts"] } },
      {
        test: {
          name: "e2e",
          root: "e2e",
          // The browser journeys, and the unit tests of the suite's own tools (the log scan).
          include: ["**/*.e2e.ts", "**/*.test.ts"],
          globalSetup: ["global.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: false,
          // A browser test that fails once is run once more (as Playwright's own CI setup does); the report
          // still names every retried test, so a flaky one stays visible. A real fault fails both runs.
          retry: 1,
        },
      },
    ],
  },
});
