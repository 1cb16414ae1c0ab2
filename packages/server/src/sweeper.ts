import { setImmediate as nextTurn } from "node:timers/promises";
import { MAIL_RETENTION_MS } from "@gatehouse/contract";
import type { FastifyBaseLogger } from "fastify";
import { sweepThrottle } from "./accounts/throttle.ts";
import { sweepRememberedBrowsers } from "./factors/remembered-browsers.ts";
import { sweepSessions } from "./sessions/sessions.ts";
import { auditStore } from "./store/audit.ts";
import { captchasStore } from "./store/captchas.ts";
import { codesStore } from "./store/codes.ts";
import { type Db, logFailure } from "./store/db.ts";
import { discourseNoncesStore } from "./store/discourse-nonces.ts";
import { federationStore } from "./store/federation.ts";
import { jobsStore } from "./store/jobs.ts";
import { oidcStore } from "./store/oidc.ts";
import { outboxStore } from "./store/outbox.ts";
import { rateLimitsStore } from "./store/rate-limits.ts";
import { sessionLinksStore } from "./store/session-links.ts";
import { signInAttemptsStore } from "./store/sign-in-attempts.ts";
import { SWEEP_BATCH } from "./store/sweep.ts";

/** How often each node sweeps: rows past their end are harmless (every read checks the time), only space. */
export const SWEEP_EVERY_MS = 10 * 60 * 1000;
/** Codes are kept 30 days past their expiry, so a late click still says "expired" rather than "unknown". */
const CODES_KEPT_MS = 30 * 24 * 3600_000;

export interface SweepOptions {
  /** AUDIT_RETENTION_DAYS in milliseconds. */
  auditRetentionMs: number;
  /** The most rows one statement deletes (SWEEP_BATCH; tests make it small). */
  batch?: number;
}

/** One kind of row the sweeper removes: a call deletes at most `limit` rows and answers how many. */
type Sweep = (db: Db, now: number, limit: number) => Promise<number>;

function sweeps(options: SweepOptions): Record<string, Sweep> {
  return {
    sessions: sweepSessions,
    sessionLinks: sessionLinksStore.deleteExpired,
    throttle: sweepThrottle,
    codes: (db, now, limit) => codesStore.deleteStale(db, now - CODES_KEPT_MS, limit),
    captchas: captchasStore.deleteStale,
    rateLimits: rateLimitsStore.deleteStale,
    oidc: oidcStore.deleteExpired,
    federation: federationStore.deleteExpired,
    signInAttempts: signInAttemptsStore.deleteExpired,
    discourseNonces: discourseNoncesStore.deleteExpired,
    rememberedBrowsers: sweepRememberedBrowsers,
    // Issue #28: the audit trail is kept AUDIT_RETENTION_DAYS (docs/decisions.md "Audit retention").
    audit: (db, now, limit) => auditStore.deleteOlderThan(db, now - options.auditRetentionMs, limit),
    // The queue's finished rows: its store deletes them in one statement each (answering 0 ends the loop).
    outbox: async (db, now) => {
      await outboxStore.deleteFinishedBefore(db, now - MAIL_RETENTION_MS);
      return 0;
    },
    jobs: async (db, now) => {
      await jobsStore.deleteFinishedBefore(db, now - MAIL_RETENTION_MS);
      return 0;
    },
  };
}

/**
 * One pass: every kind of expired row, one kind after another, in statements of at most `batch` rows, repeated
 * until a statement finds fewer, yielding to requests between statements (issue #28): a backlog of millions
 * never holds a lock, nor the event loop, for long. `stopped` ends the pass between statements (shutdown).
 * Answers how many rows of each kind went.
 */
export async function sweep(
  db: Db,
  options: SweepOptions,
  now = Date.now(),
  stopped: () => boolean = () => false,
): Promise<Record<string, number>> {
  const batch = options.batch ?? SWEEP_BATCH;
  const removed: Record<string, number> = {};
  for (const [kind, run] of Object.entries(sweeps(options))) {
    removed[kind] = 0;
    for (;;) {
      if (stopped()) return removed;
      const count = await run(db, now, batch);
      removed[kind] += count;
      if (count < batch) break;
      await nextTurn();
    }
  }
  return removed;
}

/** Sweeps every SWEEP_EVERY_MS, one pass at a time; `stop` waits for a pass under way to end at its next batch. */
export function startSweeper(
  db: Db,
  log: FastifyBaseLogger,
  options: SweepOptions & { everyMs?: number },
): { stop: () => Promise<void> } {
  let running: Promise<unknown> | undefined;
  let stopping = false;
  const timer = setInterval(() => {
    if (running) return;
    running = sweep(db, options, Date.now(), () => stopping)
      .catch((err) => logFailure(log, err, "sweep failed"))
      .finally(() => {
        running = undefined;
      });
  }, options.everyMs ?? SWEEP_EVERY_MS);
  timer.unref();
  return {
    stop: async () => {
      stopping = true;
      clearInterval(timer);
      await running;
    },
  };
}
