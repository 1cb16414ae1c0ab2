import { randomUUID } from "node:crypto";
import { MAIL_RETRY } from "@gatehouse/contract";
import type { FastifyBaseLogger } from "fastify";
import type { Db } from "../store/db.ts";
import { jobsStore } from "../store/jobs.ts";
import { backOff } from "./back-off.ts";
import { type PassLoop, startPassLoop } from "./pass-loop.ts";

/** What running a job may say besides success: `JobGone` means done without effect (nothing left to do). */
export type JobHandler = (payload: unknown) => Promise<void>;

export type JobWorker = PassLoop;

/**
 * How long a claimed job is this worker's alone: far past the slowest handler (the forum's sign-out is two calls of
 * at most 10 s each), so no other node takes a job that is still running. A worker that dies holding one leaves it
 * to the others after this long.
 */
export const JOB_LEASE_MS = 5 * 60_000;
const BATCH = 20;

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
    last_error: null,
    created_at: now,
    done_at: null,
  });
  return id;
}

/**
 * Runs the jobs table as the mail worker runs the outbox (mail/worker.ts): each due job is leased with one
 * conditional update at the moment it is taken (so two nodes never run one at once), run, and marked done only
 * under that same lease (so a worker whose lease lapsed never reopens or re-marks a job another node finished); a
 * failure schedules a retry with the outbox's back-off (10 s doubling to an hour, `firstDelayMs` in tests), so an
 * outage delays and loses nothing. `clock` is for tests.
 */
export function startJobWorker(options: {
  db: Db;
  handlers: Readonly<Record<string, JobHandler>>;
  log: FastifyBaseLogger;
  intervalMs?: number;
  firstDelayMs?: number;
  clock?: () => number;
}): JobWorker {
  const { db, handlers, log } = options;
  const clock = options.clock ?? Date.now;
  const delay = (attempts: number) => backOff(attempts, options.firstDelayMs ?? MAIL_RETRY.firstDelayMs);

  async function pass(stopped: () => boolean): Promise<void> {
    for (const job of await jobsStore.due(db, clock(), BATCH)) {
      if (stopped()) return;
      const handler = handlers[job.kind];
      // A kind this node does not run (not configured here) is left for a node that does.
      if (!handler) continue;
      // The time of claiming, not of the batch's read: the jobs before this one may have taken a while.
      const claimedAt = clock();
      const lease = claimedAt + JOB_LEASE_MS;
      if (!(await jobsStore.claim(db, job.id, claimedAt, lease, job.attempts))) continue;
      try {
        await handler(JSON.parse(job.payload));
        if (await jobsStore.markDone(db, job.id, clock(), lease)) log.info({ job: job.id, kind: job.kind }, "job done");
        else log.warn({ job: job.id, kind: job.kind }, "job done after its lease ran out; another worker has it");
      } catch (error) {
        const attempts = job.attempts + 1;
        const failed = attempts >= MAIL_RETRY.maxAttempts;
        const message = (error as Error).message;
        if (!(await jobsStore.markRetry(db, job.id, lease, attempts, clock() + delay(attempts), message, failed))) {
          log.warn({ job: job.id, kind: job.kind, err: message }, "job failed after its lease ran out; left as it is");
          continue;
        }
        log[failed ? "error" : "warn"](
          { job: job.id, kind: job.kind, attempts, err: message },
          failed ? "job given up" : "job will be retried",
        );
      }
    }
  }

  return startPassLoop({ pass, log, failure: "job pass failed", intervalMs: options.intervalMs });
}
