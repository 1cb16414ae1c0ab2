/** What the soak saw of each kind of request: answers by class, latencies, and the first few unexpected ones. */
import { createHistogram, type RecordableHistogram } from "node:perf_hooks";
import type { Failure } from "./verdict.ts";

export interface RequestStats {
  count: number;
  /** Answers with the status the request must get (a signed-in session check must not answer 204, say). */
  expected: number;
  /** Other answers below 500, and 5xx answers. */
  other4xx: number;
  server5xx: number;
  /** Other unexpected statuses (a 2xx or 3xx that is not the expected one). */
  otherStatus: number;
  /** No answer: refused or broken connections, and the soak's request time-out. */
  errors: number;
  /** Latencies in microseconds (perf_hooks' histogram: bounded memory however long the run). */
  latency: RecordableHistogram;
}

/** Where a request went and when it started (performance.now()), for the chaos soak's outage windows. */
export interface Sent {
  node: number;
  startedAt: number;
}

/** At most this many unexpected answers are kept for the report, with the start of their body. */
const KEPT_PROBLEMS = 12;
const BODY_SHOWN = 300;

export class Stats {
  readonly requests = new Map<string, RequestStats>();
  readonly problems: string[] = [];
  /** Every unexpected answer, missing answer or other failure, kept or not. */
  incidents = 0;
  /** Every 5xx and request without an answer, with its node and times (performance.now()): verdict.ts judges them. */
  readonly failures: Failure[] = [];

  private of(name: string): RequestStats {
    let stats = this.requests.get(name);
    if (!stats) {
      stats = {
        count: 0,
        expected: 0,
        other4xx: 0,
        server5xx: 0,
        otherStatus: 0,
        errors: 0,
        latency: createHistogram(),
      };
      this.requests.set(name, stats);
    }
    return stats;
  }

  answer(name: string, ms: number, status: number, expected: number, body: string, sent?: Sent): void {
    const stats = this.of(name);
    stats.count += 1;
    stats.latency.record(Math.max(1, Math.round(ms * 1000)));
    if (status === expected) {
      stats.expected += 1;
      return;
    }
    if (status >= 500) {
      stats.server5xx += 1;
      this.fail(name, sent, status);
    } else if (status >= 400) stats.other4xx += 1;
    else stats.otherStatus += 1;
    this.problem(`${name}: ${status} (expected ${expected}) ${body.slice(0, BODY_SHOWN)}`);
  }

  error(name: string, ms: number, error: unknown, sent?: Sent): void {
    const stats = this.of(name);
    this.fail(name, sent);
    stats.count += 1;
    stats.errors += 1;
    stats.latency.record(Math.max(1, Math.round(ms * 1000)));
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    this.problem(`${name}: no answer, ${(error as Error).message}${cause ? ` (${cause.code ?? cause.message})` : ""}`);
  }

  private fail(name: string, sent: Sent | undefined, status?: number): void {
    const endedMs = performance.now();
    this.failures.push({ name, node: sent?.node ?? 0, startedMs: sent?.startedAt ?? endedMs, endedMs, status });
  }

  /** Something the soak could not do, outside any one request (a refresh chain that ran out, say). */
  problem(text: string): void {
    this.incidents += 1;
    if (this.problems.length < KEPT_PROBLEMS) this.problems.push(text);
  }

  total(field: "count" | "expected" | "other4xx" | "server5xx" | "otherStatus" | "errors"): number {
    let sum = 0;
    for (const stats of this.requests.values()) sum += stats[field];
    return sum;
  }

  /** Every request got the answer it must get. */
  get clean(): boolean {
    return this.incidents === 0;
  }
}
