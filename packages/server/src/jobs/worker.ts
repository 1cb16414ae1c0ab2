import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { MAIL_RETRY } from "@gatehouse/contract";
import type { FastifyBaseLogger } from "fastify";
import { type Db, isDatabaseUnavailable, logFailure } from "../store/db.ts";
import { jobsStore } from "../store/jobs.ts";
import type { JobRow } from "../store/schema.ts";
import { backOff } from "./back-off.ts";
import { type PassLoop, startPassLoop } from "./pass-loop.ts";

/** What a kind of job does. A bare function is a kind with nothing to write when it finishes. */
export interface JobKind {
  run(payload: unknown): Promise<void>;
  /** Written in the transaction that marks the job done under its lease (e.g. the outbox message marked sent). */
  done?(trx: Db, payload: unknown, at: number): Promise<void>;
  /** Written in the transaction that schedules its retry or gives it up, under its lease. */
  failed?(trx: Db, payload: unknown, outcome: RetryOutcome): Promise<void>;
}
export type JobHandler = ((payload: unknown) => Promise<void>) | JobKind;

export interface RetryOutcome {
  attempts: number;
  next: number;
  error: string;
  gaveUp: boolean;
}

export type QueueWorker = PassLoop;
/** The names the routes and the app know the one worker by (`services.jobs`, `services.mail`). */
export type JobWorker = QueueWorker;

/**
 * Issue #28: how long a claim is its worker's alone without a heartbeat. Short, so the work of a node killed with
 * `kill -9` is taken over within a minute (this, plus at most one pass interval); the worker renews it every
 * `QUEUE_HEARTBEAT_MS` while a handler runs, so the slowest handler (an SMTP exchange, the forum's two calls of
 * 10 s, a back-channel post) never loses it.
 */
export const QUEUE_LEASE_MS = 30_000;
/** A third of the lease: two renewals may fail (a database blip) before the lease lapses. */
export const QUEUE_HEARTBEAT_MS = 10_000;
const BATCH = 20;
/**
 * Issue #28: a finish that finds the database away is tried again until this long before the lease ends (the soak's
 * PostgreSQL restart: a mail the SMTP server had accepted went again once the lease lapsed, because the worker could
 * not record it sent). Another worker takes the job only after the lease, so a finish within it sends nothing twice.
 */
const FINISH_MARGIN_MS = 2_000;

/** How many jobs this process has queued: the app wakes its worker after a request that queued some (app.ts). */
let queuedInProcess = 0;
export const queuedSoFar = (): number => queuedInProcess;

/**
 * Queues a job. Call it in the step that makes the change it follows (inside its transaction where there is one),
 * so a crash cannot lose it; the worker of any node runs it.
 */
export async function queueJob(db: Db, kind: string, payload: unknown, now = Date.now()): Promise<string> {
  const id = randomUUID();
  await jobsStore.insert(db, {
    id,
    kind,
    payload: JSON.stringify(payload),
    status: "pending",
    attempts: 0,
    next_attempt_at: now,
    claimed_until: null,
    lease_token: null,
    last_error: null,
    created_at: now,
    done_at: null,
  });
  queuedInProcess += 1;
  return id;
}

const kindOf = (handler: JobHandler): JobKind => (typeof handler === "function" ? { run: handler } : handler);

/**
 * The one worker of the one durable queue (issue #28: mail is the kind "mail", mail/worker.ts): each due job is
 * leased with one conditional update at the moment it is taken, under a token new to this claim (so two nodes never
 * run one at once); the lease is renewed while the handler runs; the job is finished only under that token (so a
 * worker whose lease lapsed and was taken over never reopens or re-marks it). A failure schedules a retry with
 * back-off (10 s doubling to an hour, `firstDelayMs` in tests) up to MAIL_RETRY.maxAttempts. `clock`, `leaseMs`
 * and `heartbeatMs` are for tests.
 */
export function startQueueWorker(options: {
  db: Db;
  handlers: Readonly<Record<string, JobHandler>>;
  log: FastifyBaseLogger;
  intervalMs?: number;
  firstDelayMs?: number;
  clock?: () => number;
  leaseMs?: number;
  heartbeatMs?: number;
  onStop?: () => void;
}): QueueWorker {
  const { db, log } = options;
  const clock = options.clock ?? Date.now;
  const leaseMs = options.leaseMs ?? QUEUE_LEASE_MS;
  const heartbeatMs = options.heartbeatMs ?? QUEUE_HEARTBEAT_MS;
  const kinds = new Map(Object.entries(options.handlers).map(([name, handler]) => [name, kindOf(handler)]));
  const delay = (attempts: number) => backOff(attempts, options.firstDelayMs ?? MAIL_RETRY.firstDelayMs);

  /**
   * Renews the lease every `heartbeatMs` until stopped, or until a renewal finds it taken (then stops). `leaseEnds`
   * is when the lease last taken or renewed runs out.
   */
  function heartbeat(job: JobRow, token: string, claimedUntil: number) {
    let lost = false;
    let until = claimedUntil;
    let beat: Promise<void> = Promise.resolve();
    const renew = async () => {
      if (lost) return;
      try {
        const next = clock() + leaseMs;
        if (await jobsStore.renew(db, job.id, token, next)) {
          until = next;
          return;
        }
        lost = true;
        clearInterval(timer);
        log.warn({ job: job.id, kind: job.kind }, "job lease lost while running; another worker has it");
      } catch (err) {
        // The database away: the next beat tries again (the lease has two beats of slack).
        logFailure(log, err, "job lease renewal failed", { fields: { job: job.id } });
      }
    };
    const timer = setInterval(() => {
      beat = beat.then(renew);
    }, heartbeatMs);
    return {
      leaseEnds: () => (lost ? 0 : until),
      stop: async () => {
        clearInterval(timer);
        await beat;
      },
    };
  }

  /**
   * Runs a finish, and again while the database is away and the lease is still this worker's (FINISH_MARGIN_MS):
   * the work is done (a mail accepted), only its record is missing. Past the lease it gives up: another worker may
   * run the job again (at least once).
   */
  async function withinLease<T>(job: JobRow, leaseEnds: number, finish: () => Promise<T>): Promise<T> {
    // The lease's clock may be a test's; the waiting is real time.
    const giveUpAt = performance.now() + leaseEnds - clock() - FINISH_MARGIN_MS;
    for (let wait = 100; ; wait = Math.min(2 * wait, 1_000)) {
      try {
        return await finish();
      } catch (err) {
        if (!isDatabaseUnavailable(err) || performance.now() + wait > giveUpAt) throw err;
        logFailure(log, err, "job finish failed", {
          fields: { job: job.id },
          unavailable: "job finish waits for the database",
        });
        await sleep(wait);
      }
    }
  }

  async function finishDone(job: JobRow, kind: JobKind, payload: unknown, token: string): Promise<boolean> {
    return db.transaction().execute(async (trx) => {
      const at = clock();
      if (!(await jobsStore.markDone(trx, job.id, at, token))) return false;
      await kind.done?.(trx, payload, at);
      return true;
    });
  }

  async function finishFailed(job: JobRow, kind: JobKind, payload: unknown, token: string, error: string) {
    const attempts = job.attempts + 1;
    const outcome = { attempts, next: clock() + delay(attempts), error, gaveUp: attempts >= MAIL_RETRY.maxAttempts };
    const marked = await db.transaction().execute(async (trx) => {
      if (!(await jobsStore.markRetry(trx, job.id, token, attempts, outcome.next, error, outcome.gaveUp))) return false;
      await kind.failed?.(trx, payload, outcome);
      return true;
    });
    if (!marked)
      log.warn({ job: job.id, kind: job.kind, err: error }, "job failed after its lease was lost; left as it is");
    else
      log[outcome.gaveUp ? "error" : "warn"](
        { job: job.id, kind: job.kind, attempts, err: error },
        outcome.gaveUp ? "job given up" : "job will be retried",
      );
  }

  async function runJob(job: JobRow, kind: JobKind): Promise<void> {
    // The time of claiming, not of the batch's read: the jobs before this one may have taken a while.
    const claimedAt = clock();
    const token = randomUUID();
    if (!(await jobsStore.claim(db, job.id, claimedAt, claimedAt + leaseMs, token, job.attempts))) return;
    const lease = heartbeat(job, token, claimedAt + leaseMs);
    const payload: unknown = JSON.parse(job.payload);
    let failure: string | undefined;
    try {
      await kind.run(payload);
    } catch (error) {
      failure = (error as Error).message;
    } finally {
      await lease.stop();
    }
    const leaseEnds = lease.leaseEnds();
    if (failure !== undefined)
      return withinLease(job, leaseEnds, () => finishFailed(job, kind, payload, token, failure));
    if (await withinLease(job, leaseEnds, () => finishDone(job, kind, payload, token)))
      log.info({ job: job.id, kind: job.kind }, "job done");
    else log.warn({ job: job.id, kind: job.kind }, "job done after its lease was lost; another worker has it");
  }

  async function pass(stopped: () => boolean): Promise<void> {
    for (const job of await jobsStore.due(db, clock(), BATCH, [...kinds.keys()])) {
      if (stopped()) return;
      const kind = kinds.get(job.kind);
      if (kind) await runJob(job, kind);
    }
  }

  return startPassLoop({
    pass,
    log,
    failure: "queue pass failed",
    intervalMs: options.intervalMs,
    ...(options.onStop ? { onStop: options.onStop } : {}),
  });
}
