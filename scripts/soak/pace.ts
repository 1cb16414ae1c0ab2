/** The soak's pace: which kind of operation comes next, the mix flat out, and the mix at a fixed rate. */
import { type Kind, type Load, MIX } from "./load.ts";

/**
 * The kinds in the order the mix asks them, in exact proportion at every point of a run (smooth weighted
 * round-robin, as nginx balances weighted servers): no burst of one kind, however short the run.
 */
export function mixSequence(mix: Readonly<Record<Kind, number>> = MIX): () => Kind {
  const kinds = Object.keys(mix) as Kind[];
  const credit = new Map<Kind, number>(kinds.map((kind) => [kind, 0]));
  const total = kinds.reduce((sum, kind) => sum + mix[kind], 0);
  return () => {
    let best = kinds[0] as Kind;
    for (const kind of kinds) {
      credit.set(kind, (credit.get(kind) as number) + mix[kind]);
      if ((credit.get(kind) as number) > (credit.get(best) as number)) best = kind;
    }
    credit.set(best, (credit.get(best) as number) - total);
    return best;
  };
}

/** The mix flat out: `concurrency` clients, each starting its next operation when its last one ends. */
export async function closedLoop(load: Load, seconds: number, concurrency: number): Promise<number> {
  const next = mixSequence();
  const until = performance.now() + seconds * 1000;
  let done = 0;
  const began = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        await load.run(next());
        done += 1;
      }
    }),
  );
  return done / ((performance.now() - began) / 1000);
}

export interface OpenLoopResult {
  /** Operations started, and those the schedule asked for but that could not start (too many in flight). */
  started: number;
  behind: number;
  /** The run's length in seconds, from its first operation until the last one answered. */
  seconds: number;
}

/** More operations in flight than this means the gateway no longer keeps up: the schedule waits rather than pile on. */
const MAX_IN_FLIGHT = 256;
const TICK_MS = 10;

/**
 * The mix at a fixed rate (operations per second), whatever the answers' times (an open loop, as independent
 * visitors arrive), for `ms`; then waits for the operations still in flight.
 */
export async function openLoop(load: Load, rate: number, ms: number): Promise<OpenLoopResult> {
  const next = mixSequence();
  const began = performance.now();
  const running = new Set<Promise<unknown>>();
  let started = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const elapsed = Math.min(performance.now() - began, ms);
      const due = Math.floor((elapsed / 1000) * rate);
      while (started < due && running.size < MAX_IN_FLIGHT) {
        started += 1;
        const operation = load.run(next()).finally(() => running.delete(operation));
        running.add(operation);
      }
      if (elapsed >= ms) {
        clearInterval(timer);
        resolve();
      }
    }, TICK_MS);
  });
  const behind = Math.floor((ms / 1000) * rate) - started;
  await Promise.all(running);
  return { started, behind, seconds: (performance.now() - began) / 1000 };
}
