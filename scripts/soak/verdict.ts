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
  const warmupEnds = loadMs * MEMORY_RULE.warmupShare;
  const window = (loadMs - warmupEnds) * MEMORY_RULE.windowShare;
  const first = samples.filter((s) => s.atMs >= warmupEnds && s.atMs < warmupEnds + window).map((s) => s.bytes);
  const last = samples.filter((s) => s.atMs > loadMs - window && s.atMs <= loadMs).map((s) => s.bytes);
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
): MailJudgement {
  const missing = [...acknowledged].filter((address) => !received.has(address));
  const duplicates = [...received].filter(([, count]) => count > 1).map(([address]) => address);
  const unexpected = [...received.keys()].filter((address) => !attempted.has(address));
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
