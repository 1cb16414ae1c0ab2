/**
 * The soak's judgements that are plain arithmetic, apart from the load so a test can pin them
 * (packages/server/test/soak-verdict.test.ts).
 */

/** One reading of the gateway's resident memory, `atMs` from the start of the half-capacity load. */
export interface RssSample {
  atMs: number;
  bytes: number;
}

/**
 * The memory rule: the first 20% of the load is warm-up (caches fill, V8 sizes its heap, SQLite its page cache) and
 * is not judged. The rest is cut in eighths; the median of the last eighth may exceed the median of the first by
 * at most 10%. Medians of about a minute of one-second samples (in a 10-minute run) ignore the saw-tooth of
 * garbage collection; comparing the two ends after warm-up catches a steady climb that a peak would not.
 */
export const MEMORY_RULE = { warmupShare: 0.2, windowShare: 1 / 8, maxClimb: 0.1 } as const;

export interface MemoryJudgement {
  /** Median RSS of the first window after warm-up ("at warm-up end"), in bytes. */
  afterWarmup: number;
  /** Median RSS of the last window of the load ("at the end"), in bytes. */
  end: number;
  /** end ÷ afterWarmup − 1. */
  climb: number;
  /** Samples in each window. */
  windowSamples: [number, number];
  ok: boolean;
}

export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Judges the samples of a load that lasted `loadMs` by MEMORY_RULE; too few samples to judge is a failure. */
export function judgeMemory(samples: RssSample[], loadMs: number): MemoryJudgement {
  return judgeMemorySpan(samples, 0, loadMs);
}

/**
 * MEMORY_RULE over the part of the load from `fromMs` to `toMs`: a node restarted during the load is judged from its
 * restart on, with a warm-up of its own (a new process fills its caches again).
 */
export function judgeMemorySpan(samples: RssSample[], fromMs: number, toMs: number): MemoryJudgement {
  const warmupEnds = fromMs + (toMs - fromMs) * MEMORY_RULE.warmupShare;
  const window = (toMs - warmupEnds) * MEMORY_RULE.windowShare;
  const first = samples.filter((s) => s.atMs >= warmupEnds && s.atMs < warmupEnds + window).map((s) => s.bytes);
  const last = samples.filter((s) => s.atMs > toMs - window && s.atMs <= toMs).map((s) => s.bytes);
  const afterWarmup = median(first);
  const end = median(last);
  const climb = end / afterWarmup - 1;
  return {
    afterWarmup,
    end,
    climb,
    windowSamples: [first.length, last.length],
    ok: first.length >= 3 && last.length >= 3 && climb <= MEMORY_RULE.maxClimb,
  };
}

export interface MailJudgement {
  /** Registrations the gateway acknowledged (200): each owes exactly one mail. */
  expected: number;
  /** Of those, the ones whose mail arrived (once or more). */
  arrived: number;
  missing: string[];
  /** Addresses that received more than one message. */
  duplicates: string[];
  /** Recipients the soak never registered. */
  unexpected: string[];
  /** Mails for registrations the soak tried but whose answer was not 200 (a broken connection, say). */
  forUnacknowledged: number;
  ok: boolean;
}

/**
 * Every acknowledged registration got exactly one mail, no address got two, nobody the soak did not register got
 * any. A registration without an acknowledgement may have a mail (the account was made, the answer lost) or not;
 * the failed answer fails the soak on its own.
 */
export function judgeMail(
  acknowledged: ReadonlySet<string>,
  attempted: ReadonlySet<string>,
  received: ReadonlyMap<string, number>,
  /**
   * Accounts the load signs in to: their mails (a sign-in from a new browser, at most a few a day) are not
   * activation mails and are neither duplicates nor unexpected.
   */
  signingIn: ReadonlySet<string> = new Set(),
): MailJudgement {
  const missing = [...acknowledged].filter((address) => !received.has(address));
  const duplicates = [...received]
    .filter(([address, count]) => count > 1 && !signingIn.has(address))
    .map(([address]) => address);
  const unexpected = [...received.keys()].filter((address) => !attempted.has(address) && !signingIn.has(address));
  const forUnacknowledged = [...received.keys()].filter(
    (address) => attempted.has(address) && !acknowledged.has(address),
  ).length;
  return {
    expected: acknowledged.size,
    arrived: acknowledged.size - missing.length,
    missing,
    duplicates,
    unexpected,
    forUnacknowledged,
    ok: missing.length === 0 && duplicates.length === 0 && unexpected.length === 0,
  };
}

/** One process of a gateway node during the load: a node killed and restarted has two. */
export interface NodeProcess {
  node: number;
  /** From its start (or the load's) to its end (or the load's), in ms from the start of the load. */
  fromMs: number;
  toMs: number;
  samples: RssSample[];
  /** The node's last process, the one running at the end. */
  last: boolean;
}

export interface NodeMemoryJudgement extends NodeProcess {
  memory: MemoryJudgement;
  /** Too few samples to judge: allowed only for a process killed early, never for a node's last one. */
  judged: boolean;
}

/**
 * The memory rule per node process (chaos soak): each node's last process must be judged and flat; an earlier one
 * (killed with SIGKILL) is judged when it lived long enough to fill both windows, and must then be flat too.
 */
export function judgeNodeMemory(processes: NodeProcess[]): { processes: NodeMemoryJudgement[]; ok: boolean } {
  const judged = processes.map((process) => {
    const memory = judgeMemorySpan(process.samples, process.fromMs, process.toMs);
    const enough = memory.windowSamples[0] >= 3 && memory.windowSamples[1] >= 3;
    return { ...process, memory, judged: enough };
  });
  const ok = judged.every((p) => (p.last || p.judged ? p.memory.ok : true));
  return { processes: judged, ok };
}

/** A request that did not get the answer it must get: a 5xx (`status`) or no answer at all (no `status`). */
export interface Failure {
  name: string;
  /** The gateway node it was sent to (0, 1, …). */
  node: number;
  startedMs: number;
  endedMs: number;
  status?: number;
}

/**
 * A fault the chaos soak caused on purpose, from the moment it began until the service was back: a node killed with
 * SIGKILL until its restart answered /readyz, or PostgreSQL stopped until it ran again (plus the time the pools need
 * to reconnect).
 */
export type Outage =
  | { kind: "node"; node: number; fromMs: number; toMs: number }
  | { kind: "database"; fromMs: number; toMs: number };

export interface FailureJudgement {
  /** Requests to a node while it was killed that got no answer (in flight at the kill; never acknowledged). */
  nodeDown: Failure[];
  /** 503 answers (Retry-After: try again) while PostgreSQL was down. */
  unavailable: Failure[];
  /** Everything else: a 5xx other than those 503s, or no answer from a node that was up. Each fails the soak. */
  broken: Failure[];
}

const overlaps = (failure: Failure, outage: Outage) =>
  failure.startedMs <= outage.toMs && failure.endedMs >= outage.fromMs;

/**
 * Sorts the failures by the outages the soak caused: a killed node cannot answer what was in flight to it, and a
 * node without its database answers 503 as it must; neither is excused outside its outage, and a 500 never is.
 */
export function judgeFailures(failures: Failure[], outages: Outage[]): FailureJudgement {
  const judgement: FailureJudgement = { nodeDown: [], unavailable: [], broken: [] };
  for (const failure of failures) {
    if (
      failure.status === undefined &&
      outages.some((o) => o.kind === "node" && o.node === failure.node && overlaps(failure, o))
    )
      judgement.nodeDown.push(failure);
    else if (failure.status === 503 && outages.some((o) => o.kind === "database" && overlaps(failure, o)))
      judgement.unavailable.push(failure);
    else judgement.broken.push(failure);
  }
  return judgement;
}

/** Acknowledged operations checked after the load: those the service no longer knows are lost. */
export function lostAcknowledged(acknowledged: Iterable<string>, found: ReadonlySet<string>): string[] {
  return [...acknowledged].filter((key) => !found.has(key));
}
