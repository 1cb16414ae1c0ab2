import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: [
      { test: { name: "contract", root: "packages/contract", include: ["test/**/*.test.ts"] } },
      {
        test: {
          name: "server",
          root: "packages/server",
          include: ["test/**/*.test.ts"],
          globalSetup: ["test/postgres.global.ts"],
          testTimeout: 20_000,
          hookTimeout: 60_000,
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
