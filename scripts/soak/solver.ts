/**
 * The visitor's side of the registration's bot check: the proof of work the ALTCHA widget does in the browser,
 * at the production difficulty. altcha-lib's solver hashes synchronously (tens of milliseconds a challenge here),
 * so it runs in worker threads: on the soak's own event loop it would delay every answer the soak times.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { Challenge, Solution } from "altcha-lib";

interface Job {
  challenge: Challenge;
  resolve: (token: string) => void;
  reject: (error: Error) => void;
}

export interface Solver {
  /** The token the registration form sends (`botCheck`): the challenge and its solution, Base64 JSON. */
  solve(challenge: Challenge): Promise<string>;
  close(): Promise<void>;
}

/** A pool of solving threads; a challenge waits for the first idle one. */
export function startSolver(threads = availableParallelism()): Solver {
  const waiting: Job[] = [];
  const idle: Worker[] = [];
  const running = new Map<Worker, Job>();

  const give = (worker: Worker) => {
    const job = waiting.shift();
    if (!job) {
      idle.push(worker);
      return;
    }
    running.set(worker, job);
    worker.postMessage(job.challenge);
  };
  for (let i = 0; i < threads; i++) {
    const worker = new Worker(new URL("./solver-worker.ts", import.meta.url));
    worker.on("message", (answer: { solution?: Solution | null; error?: string }) => {
      const job = running.get(worker);
      running.delete(worker);
      if (job && answer.solution) {
        job.resolve(
          Buffer.from(JSON.stringify({ challenge: job.challenge, solution: answer.solution })).toString("base64"),
        );
      } else job?.reject(new Error(answer.error ?? "could not solve the challenge"));
      give(worker);
    });
    // An idle thread must not keep the soak alive at its end.
    worker.unref();
    idle.push(worker);
  }
  return {
    solve(challenge) {
      return new Promise((resolve, reject) => {
        waiting.push({ challenge, resolve, reject });
        const worker = idle.pop();
        if (worker) give(worker);
      });
    },
    async close() {
      await Promise.all([...idle, ...running.keys()].map((worker) => worker.terminate()));
    },
  };
}
