import type { FastifyBaseLogger } from "fastify";
import { logFailure } from "../store/db.ts";

export interface PassLoop {
  /** Run a pass now (after queueing something). */
  kick(): void;
  /** One pass over what is due; resolves when it is done. A call during a pass asks for one more after it. */
  runOnce(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The loop both durable queues run (the mail outbox, mail/worker.ts, and the jobs table, jobs/worker.ts): a pass
 * every `intervalMs` and on `kick`, never two at once in one process (a kick during a pass runs one more after it), a
 * failed pass logged and retried at the next; `stop` waits for the pass under way. The pass is told whether the loop
 * has stopped, so it ends between items.
 */
export function startPassLoop(options: {
  pass: (stopped: () => boolean) => Promise<void>;
  log: FastifyBaseLogger;
  /** What the log calls a failed pass, e.g. "mail pass failed". */
  failure: string;
  intervalMs?: number;
  onStop?: () => void;
}): PassLoop {
  const { pass, log } = options;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  const isStopped = () => stopped;

  function runOnce(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        // The database away (a restart, a failover) is waited out: the next pass carries on (issue #14).
        await pass(isStopped).catch((err) => logFailure(log, err, options.failure));
      } while (again && !stopped);
    })().finally(() => {
      running = undefined;
    });
    return running;
  }

  const timer = setInterval(() => void runOnce(), options.intervalMs ?? 5_000);
  timer.unref();
  return {
    kick: () => void runOnce(),
    runOnce,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
      options.onStop?.();
    },
  };
}
