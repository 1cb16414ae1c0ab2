import { buildApp } from "./app.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { isDatabaseUnavailable } from "./store/db.ts";

/** Starts the gateway: validated configuration, migrations, then listen; closes cleanly on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  // Development logs are for a person at a terminal: one readable line per event. Production (and tests) keep
  // pino's JSON lines for the log pipeline.
  const app = await buildApp(
    config,
    config.nodeEnv === "development"
      ? {
          // Loaded only here: production never pays its memory (issue #9).
          logStream: (await import("pino-pretty")).default({
            colorize: process.stdout.isTTY,
            translateTime: "SYS:HH:MM:ss",
            ignore: "pid,hostname,reqId",
          }),
          compactRequestLog: true,
        }
      : {},
  );
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, "shutting down");
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    app.close().then(
      () => process.exit(0),
      (err) => {
        app.log.error({ err }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
  await app.listen({ port: config.port, host: config.host });
  app.log.info(
    `Gatehouse is ready at ${config.publicUrl.origin} (listening on ${config.host}:${config.port}, ${app.dbKind})`,
  );
}

// A problem found while starting (signing keys stored under another SESSION_SECRET) is a message, not a stack.
await main().catch((error: unknown) => {
  if (isDatabaseUnavailable(error)) {
    // Nothing to serve without the database: say so plainly and let the supervisor start us again (issue #14).
    console.error(
      `The database is not reachable or did not answer in time (${error instanceof Error ? error.message : String(error)}): check DATABASE_URL and that the database is up.`,
    );
    process.exit(1);
  }
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(1);
});
