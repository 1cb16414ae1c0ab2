import { setTimeout as rest } from "node:timers/promises";
import { MAIL_RETENTION_MS } from "@gatehouse/contract";
import type { FastifyBaseLogger } from "fastify";
import { sweepThrottle } from "./accounts/throttle.ts";
import { sweepRememberedBrowsers } from "./factors/remembered-browsers.ts";
import { sweepSessions } from "./sessions/sessions.ts";
import { auditStore } from "./store/audit.ts";
import { captchasStore } from "./store/captchas.ts";
import { codesStore } from "./store/codes.ts";
import { type Db, kindOf, logFailure } from "./store/db.ts";
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
/**
 * Issue #28: the share of a pass's time spent in its statements; after each statement it rests nine times as long.
 * A backlog of millions (the first pass after AUDIT_RETENTION_DAYS is set on a trail of years) then takes its lock
 * and a core a tenth of the time, and the requests of every node keep their latency (`npm run bench -- --seeded`);
 * it is removed over some minutes instead of in one burst. A pass of a few rows rests a few milliseconds.
 */
export const SWEEP_DUTY = 0.1;

/**
 * Issue #28: how long one sweeping statement should hold SQLite's write lock, which every request that writes waits
 * for. Each kind's statements start at 100 rows and the size halves after a statement that took more than twice this
 * and doubles (up to the batch) after one that took less than half: a write that meets the sweeper waits a few
 * milliseconds whatever a row costs (an expired session's end queues its sign-out work, an audit event is one row).
 * PostgreSQL's statements lock only the expired rows no request reads, and a transaction's round trips alone take
 * milliseconds there: its statements are the batch, and the rest (SWEEP_DUTY) spares its cores.
 */
export const SWEEP_STATEMENT_MS = 5;
const FIRST_STATEMENT_ROWS = 100;

/** Codes are kept 30 days past their expiry, so a late click still says "expired" rather than "unknown". */
const CODES_KEPT_MS = 30 * 24 * 3600_000;

export interface SweepOptions {
  /** AUDIT_RETENTION_DAYS in milliseconds. */
  auditRetentionMs: number;
  /** The most rows one statement deletes (SWEEP_BATCH; tests make it small). */
  batch?: number;
  /** The share of the time spent in statements (SWEEP_DUTY); 1 rests not at all. */
  duty?: number;
  /** The time a statement aims at (SQLite: SWEEP_STATEMENT_MS; PostgreSQL: none, Infinity: the batch once grown). */
  statementMs?: number;
  /** Told of each statement: its kind, the rows it removed and how long it took (the bench's report). */
  onBatch?: (kind: string, rows: number, ms: number) => void;
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
 * One pass: every kind of expired row, one kind after another, in statements of at most `batch` rows sized to take
 * about SWEEP_STATEMENT_MS, repeated until a statement finds fewer than it asked for, resting after each (SWEEP_DUTY,
 * issue #28): a backlog of millions never holds a lock, the database or the event loop for long. An abort of
 * `signal` (shutdown) ends the pass between statements, its rest cut short. Answers how many rows of each kind went.
 */
export async function sweep(
  db: Db,
  options: SweepOptions,
  now = Date.now(),
  signal?: AbortSignal,
): Promise<Record<string, number>> {
  const batch = options.batch ?? SWEEP_BATCH;
  const target = options.statementMs ?? (kindOf(db) === "postgres" ? Number.POSITIVE_INFINITY : SWEEP_STATEMENT_MS);
  const duty = options.duty ?? SWEEP_DUTY;
  const removed: Record<string, number> = {};
  for (const [kind, run] of Object.entries(sweeps(options))) {
    removed[kind] = 0;
    let size = Math.min(batch, FIRST_STATEMENT_ROWS);
    for (;;) {
      if (signal?.aborted) return removed;
      const started = performance.now();
      const count = await run(db, now, size);
      const took = performance.now() - started;
      removed[kind] += count;
      options.onBatch?.(kind, count, took);
      await rest((took * (1 - duty)) / duty, undefined, { signal }).catch(() => {});
      if (count < size) break;
      if (took > 2 * target) size = Math.max(1, Math.floor(size / 2));
      else if (took < target / 2) size = Math.min(batch, size * 2);
    }
  }
  return removed;
}

/** Sweeps every SWEEP_EVERY_MS, one pass at a time; `stop` waits for a pass under way to end at its next statement. */
export function startSweeper(
  db: Db,
  log: FastifyBaseLogger,
  options: SweepOptions & { everyMs?: number },
): { stop: () => Promise<void> } {
  let running: Promise<unknown> | undefined;
  const stopping = new AbortController();
  const timer = setInterval(() => {
    if (running) return;
    running = sweep(db, options, Date.now(), stopping.signal)
      .catch((err) => logFailure(log, err, "sweep failed"))
      .finally(() => {
        running = undefined;
      });
  }, options.everyMs ?? SWEEP_EVERY_MS);
  timer.unref();
  return {
    stop: async () => {
      stopping.abort();
      clearInterval(timer);
      await running;
    },
  };
}
