import { describe, expect, it } from "vitest";
import { mixSequence } from "../../../scripts/soak/pace.ts";
import { judgeMail, judgeMemory, median, type RssSample } from "../../../scripts/soak/verdict.ts";

const MIB = 1024 * 1024;
const TEN_MINUTES = 10 * 60_000;

/** One sample a second over the load, from a function of the time. */
function samples(loadMs: number, bytesAt: (ms: number) => number): RssSample[] {
  return Array.from({ length: loadMs / 1000 + 1 }, (_, i) => ({ atMs: i * 1000, bytes: bytesAt(i * 1000) }));
}

describe("the soak's memory rule (npm run soak)", () => {
  it("passes a flat gateway whose garbage collection saws up and down", () => {
    // A saw-tooth of 40 MiB every 7 s over 180 MiB: peaks far above the start, no trend.
    const judged = judgeMemory(
      samples(TEN_MINUTES, (ms) => (180 + ((ms / 1000) % 7) * 6) * MIB),
      TEN_MINUTES,
    );
    expect(judged.ok).toBe(true);
    expect(Math.abs(judged.climb)).toBeLessThan(0.05);
    // Windows of one eighth of the eight minutes after warm-up: a minute of samples each.
    expect(judged.windowSamples).toEqual([60, 60]);
  });

  it("ignores the climb of the warm-up", () => {
    // From 140 MiB to 200 MiB in the first two minutes (caches, heap sizing), flat after.
    const judged = judgeMemory(
      samples(TEN_MINUTES, (ms) => Math.min(200, 140 + ms / 2000) * MIB),
      TEN_MINUTES,
    );
    expect(judged.afterWarmup).toBe(200 * MIB);
    expect(judged.ok).toBe(true);
  });

  it("fails a steady climb of more than 10% after warm-up, and passes one just under", () => {
    // 200 MiB at the end of warm-up, growing linearly: the medians are taken half a window from each end.
    const leak = (total: number) =>
      judgeMemory(
        samples(TEN_MINUTES, (ms) => (200 + (total * Math.max(0, ms - 120_000)) / 480_000) * MIB),
        TEN_MINUTES,
      );
    expect(leak(30).ok).toBe(false);
    expect(leak(30).climb).toBeGreaterThan(0.1);
    expect(leak(20).ok).toBe(true);
  });

  it("does not let one spike at the end decide", () => {
    const judged = judgeMemory(
      samples(TEN_MINUTES, (ms) => (ms > TEN_MINUTES - 5000 ? 400 : 200) * MIB),
      TEN_MINUTES,
    );
    expect(judged.end).toBe(200 * MIB);
    expect(judged.ok).toBe(true);
  });

  it("refuses to judge without enough samples, and ignores those from before the load", () => {
    const before = [{ atMs: -5000, bytes: 100 * MIB }];
    expect(judgeMemory(before, TEN_MINUTES).ok).toBe(false);
    expect(judgeMemory([...before, ...samples(TEN_MINUTES, () => 200 * MIB)], TEN_MINUTES).afterWarmup).toBe(200 * MIB);
  });

  it("takes the median", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });
});

describe("the soak's mail rule", () => {
  const attempted = new Set(["a@x.test", "b@x.test", "c@x.test"]);
  const acknowledged = new Set(["a@x.test", "b@x.test"]);

  it("passes one mail for each acknowledged registration", () => {
    const judged = judgeMail(
      acknowledged,
      attempted,
      new Map([
        ["a@x.test", 1],
        ["b@x.test", 1],
      ]),
    );
    expect(judged).toMatchObject({ expected: 2, arrived: 2, ok: true, forUnacknowledged: 0 });
  });

  it("fails a missing mail, a duplicate, and a mail nobody registered for", () => {
    expect(judgeMail(acknowledged, attempted, new Map([["a@x.test", 1]]))).toMatchObject({
      missing: ["b@x.test"],
      ok: false,
    });
    expect(
      judgeMail(
        acknowledged,
        attempted,
        new Map([
          ["a@x.test", 1],
          ["b@x.test", 2],
        ]),
      ),
    ).toMatchObject({
      duplicates: ["b@x.test"],
      ok: false,
    });
    expect(
      judgeMail(
        acknowledged,
        attempted,
        new Map([
          ["a@x.test", 1],
          ["b@x.test", 1],
          ["z@x.test", 1],
        ]),
      ),
    ).toMatchObject({ unexpected: ["z@x.test"], ok: false });
  });

  it("accepts one mail for a registration whose answer was lost, but not two", () => {
    const lost = new Map([
      ["a@x.test", 1],
      ["b@x.test", 1],
      ["c@x.test", 1],
    ]);
    expect(judgeMail(acknowledged, attempted, lost)).toMatchObject({ forUnacknowledged: 1, ok: true });
    lost.set("c@x.test", 2);
    expect(judgeMail(acknowledged, attempted, lost).ok).toBe(false);
  });
});

describe("the soak's mix", () => {
  it("asks each kind in its exact share at every point, without bursts", () => {
    const next = mixSequence({ session: 0.7, refresh: 0.15, "sign-in": 0.1, registration: 0.05 });
    const kinds = Array.from({ length: 100 }, next);
    const count = (kind: string) => kinds.filter((k) => k === kind).length;
    expect([count("session"), count("refresh"), count("sign-in"), count("registration")]).toEqual([70, 15, 10, 5]);
    // No two registrations (the rarest kind) within 20 operations of each other.
    const at = kinds.flatMap((kind, i) => (kind === "registration" ? [i] : []));
    for (let i = 1; i < at.length; i++) expect((at[i] as number) - (at[i - 1] as number)).toBe(20);
  });
});
