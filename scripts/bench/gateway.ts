/**
 * The gateway as `npm start` runs it, for `npm run bench` and `npm run soak`: the Node flags of package.json's
 * "start" script, a production environment, accounts made with the admin command line, and a start measured
 * after the compile cache is filled.
 */
import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { ready, run, start, stop } from "./processes.ts";

export const ROOT = resolve(import.meta.dirname, "../..");

/**
 * Node's flags in `npm start`, read from package.json itself, so the gateway measured is the one that runs even
 * after someone tunes them there.
 */
export function startNodeFlags(): string[] {
  const scripts = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: { start: string } })
    .scripts;
  return scripts.start.split(/\s+/u).filter((word) => /^--[\w-]+(=\S+)?$/u.test(word));
}

/** The environment Gatehouse runs with in production, on the given database, port and mail server. */
export function gatewayEnv(options: {
  databaseUrl: string;
  port: number;
  /** Where the bench's gateway would send mail (it sends none) or the soak's counting SMTP server. */
  smtpUrl: string;
  /** A folder for the web app's files: the loads ask for none, so an empty folder spares a build. */
  webDist: string;
}) {
  return {
    DATABASE_URL: options.databaseUrl,
    PORT: String(options.port),
    HOST: "127.0.0.1",
    PUBLIC_URL: `http://127.0.0.1:${options.port}`,
    LOG_LEVEL: "warn",
    NODE_ENV: "production",
    SMTP_URL: options.smtpUrl,
    SESSION_SECRET: "bench-secret-bench-secret-bench-secret",
    // The loads come from many client addresses behind one load balancer (X-Forwarded-For).
    TRUST_PROXY: "true",
    // Metrics on, as an operator runs it: every request is counted and timed (issue #14).
    METRICS_TOKEN: "bench-metrics-token-bench-metrics-token",
    WEB_DIST: options.webDist,
    // As `npm start` runs it: Node's compile cache keeps the stripped TypeScript, so a restart loads no compiler.
    NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? join(ROOT, "node_modules/.cache/node-compile"),
  };
}

export type GatewayEnv = ReturnType<typeof gatewayEnv>;

/** Active accounts with one password, made with the admin command line on the gateway's database. */
export async function createAccounts(env: GatewayEnv, emails: string[], password: string) {
  const create = (email: string) =>
    run(
      ROOT,
      [
        "packages/server/src/admin/cli.ts",
        "user:create",
        ...["--email", email, "--password", password, "--first", "Ben", "--last", "Ch", "--country", "DE"],
      ],
      env,
    );
  // The first account migrates a fresh database; the rest follow together.
  await create(emails[0] as string);
  await Promise.all(emails.slice(1).map(create));
}

/**
 * Starts the gateway as `npm start` does and waits until it is ready. A first start fills the compile cache after
 * a change of the code; the one returned is a restart, as in service.
 */
export async function startGateway(env: GatewayEnv): Promise<ChildProcess> {
  const args = [...startNodeFlags(), "scripts/start.ts"];
  const readyz = `${env.PUBLIC_URL}/readyz`;
  const first = start(ROOT, args, env);
  await ready(readyz, first);
  await stop(first);
  const server = start(ROOT, args, env);
  await ready(readyz, server);
  return server;
}
