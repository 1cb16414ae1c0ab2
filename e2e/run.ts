import { randomBytes } from "node:crypto";
import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { inject } from "vitest";
import { type ReceivedMail, TestSmtp } from "../packages/server/test/smtp.ts";
import { MAIL_FOLDER, MAIL_SEPARATOR } from "./log-scan.ts";

/**
 * What every service of one browser run shares, handed from the global setup to the test files: the folder that
 * holds each service's database (SQLite), logs and what the log scan needs (log-scan.ts), and on a PostgreSQL
 * run (E2E_DATABASE=postgres) the run's server and the one SESSION_SECRET its services are given.
 */
export interface E2eRun {
  dir: string;
  postgres?: { adminUrl: string; sessionSecret: string };
}

declare module "vitest" {
  export interface ProvidedContext {
    e2eRun: E2eRun;
  }
}

let current: E2eRun | undefined;

/** Called by the global setup, which runs in Vitest's own process (where `inject` has nothing to give). */
export function setRun(run: E2eRun): void {
  current = run;
}

/** The run's shared settings: the global setup's own, or in a test file, what it provided. */
export function theRun(): E2eRun {
  current ??= inject("e2eRun");
  return current;
}

/** A new run: its folder, and on PostgreSQL the server's admin URL (the run's SESSION_SECRET is made here). */
export function newRun(dir: string, postgresAdminUrl?: string): E2eRun {
  mkdirSync(join(dir, MAIL_FOLDER), { recursive: true });
  return {
    dir,
    ...(postgresAdminUrl
      ? { postgres: { adminUrl: postgresAdminUrl, sessionSecret: randomBytes(32).toString("base64url") } }
      : {}),
  };
}

/**
 * A real SMTP server on loopback (packages/server/test/smtp.ts) whose mail the log scan also reads: a service on
 * SMTP empties a mail's bodies once it is sent (ASVS 14.2.x), so only the receiving end still holds its codes.
 */
export function startTestSmtp(): Promise<TestSmtp> {
  const file = join(theRun().dir, MAIL_FOLDER, `${process.pid}.txt`);
  return new TestSmtp({
    onMail: (mail: ReceivedMail) => appendFileSync(file, `${mail.text}${MAIL_SEPARATOR}`),
  }).start();
}
