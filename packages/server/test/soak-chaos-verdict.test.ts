import { describe, expect, it } from "vitest";
import {
  type Failure,
  judgeFailures,
  judgeMail,
  judgeNodeMemory,
  lostAcknowledged,
  type NodeProcess,
  type Outage,
  type RssSample,
} from "../../../scripts/soak/verdict.ts";

const MIB = 1024 * 1024;
const THIRTY_MINUTES = 30 * 60_000;

/** One sample a second from `fromMs` to `toMs`, from a function of the time. */
function samples(fromMs: number, toMs: number, bytesAt: (ms: number) => number): RssSample[] {
  return Array.from({ length: Math.floor((toMs - fromMs) / 1000) + 1 }, (_, i) => ({
    atMs: fromMs + i * 1000,
    bytes: bytesAt(fromMs + i * 1000),
  }));
}

const failure = (over: Partial<Failure>): Failure => ({
  name: "GET /api/session (signed in)",
  node: 0,
  startedMs: 1000,
  endedMs: 1100,
  ...over,
});

describe("the chaos soak's failure rule (npm run soak -- --chaos)", () => {
  const outages: Outage[] = [
    { kind: "node", node: 1, fromMs: 600_000, toMs: 608_000 },
    { kind: "database", fromMs: 1_200_000, toMs: 1_210_000 },
  ];

  it("counts a request in flight to the killed node as node down, not as broken", () => {
    // Sent before the kill, its connection broken by it.
    const inFlight = failure({ node: 1, startedMs: 599_900, endedMs: 600_010 });
    expect(judgeFailures([inFlight], outages)).toEqual({ nodeDown: [inFlight], unavailable: [], broken: [] });
  });

  it("fails no answer from the node that was not killed, or from the killed one outside its outage", () => {
    const otherNode = failure({ node: 0, startedMs: 600_100, endedMs: 600_200 });
    const later = failure({ node: 1, startedMs: 700_000, endedMs: 700_100 });
    expect(judgeFailures([otherNode, later], outages).broken).toEqual([otherNode, later]);
  });

  it("accepts a 503 while PostgreSQL is down, from any node, and nothing else then", () => {
    const unavailable = [0, 1].map((node) => failure({ node, startedMs: 1_205_000, endedMs: 1_205_050, status: 503 }));
    const internal = failure({ startedMs: 1_205_000, endedMs: 1_205_050, status: 500 });
    const hung = failure({ startedMs: 1_205_000, endedMs: 1_235_000 });
    const judged = judgeFailures([...unavailable, internal, hung], outages);
    expect(judged.unavailable).toEqual(unavailable);
    expect(judged.broken).toEqual([internal, hung]);
  });

  it("fails a 503 outside the database's outage, and a 503 of a killed node's outage", () => {
    const early = failure({ startedMs: 1_100_000, endedMs: 1_100_050, status: 503 });
    const duringKill = failure({ node: 1, startedMs: 601_000, endedMs: 601_050, status: 503 });
    expect(judgeFailures([early, duringKill], outages).broken).toEqual([early, duringKill]);
  });
});

describe("the chaos soak's memory rule, per node process", () => {
  const flat = (node: number, fromMs: number, toMs: number, last: boolean): NodeProcess => ({
    node,
    fromMs,
    toMs,
    last,
    samples: samples(fromMs, toMs, (ms) => (180 + ((ms / 1000) % 7) * 6) * MIB),
  });

  it("judges a restarted node from its restart on, with a warm-up of its own", () => {
    // Node 2 killed at 10 minutes; its new process starts smaller and grows for its first minutes, then is flat.
    const restarted: NodeProcess = {
      node: 1,
      fromMs: 605_000,
      toMs: THIRTY_MINUTES,
      last: true,
      samples: samples(605_000, THIRTY_MINUTES, (ms) => Math.min(200, 120 + (ms - 605_000) / 2000) * MIB),
    };
    const judged = judgeNodeMemory([flat(0, 0, THIRTY_MINUTES, true), flat(1, 0, 600_000, false), restarted]);
    expect(judged.ok).toBe(true);
    expect(judged.processes.map((p) => p.judged)).toEqual([true, true, true]);
    expect(judged.processes[2]?.memory.afterWarmup).toBe(200 * MIB);
  });

  it("fails a restarted node that climbs after its warm-up", () => {
    const leaking: NodeProcess = {
      node: 1,
      fromMs: 605_000,
      toMs: THIRTY_MINUTES,
      last: true,
      samples: samples(605_000, THIRTY_MINUTES, (ms) => (200 + (ms - 605_000) / 20_000) * MIB),
    };
    const judged = judgeNodeMemory([flat(0, 0, THIRTY_MINUTES, true), leaking]);
    expect(judged.processes[1]?.memory.climb).toBeGreaterThan(0.1);
    expect(judged.ok).toBe(false);
  });

  it("skips a process killed too early to judge, but never a node's last one", () => {
    const short = flat(1, 0, 3000, false);
    expect(judgeNodeMemory([flat(0, 0, THIRTY_MINUTES, true), short])).toMatchObject({
      ok: true,
      processes: [{ judged: true }, { judged: false }],
    });
    expect(judgeNodeMemory([flat(0, 0, THIRTY_MINUTES, true), { ...short, last: true }]).ok).toBe(false);
  });
});

describe("the chaos soak's acknowledged operations", () => {
  it("names the acknowledged ones the service no longer knows", () => {
    expect(lostAcknowledged(new Set(["a@x.test", "b@x.test"]), new Set(["a@x.test", "c@x.test"]))).toEqual([
      "b@x.test",
    ]);
    expect(lostAcknowledged(["a@x.test"], new Set(["a@x.test"]))).toEqual([]);
  });
});

describe("the soak's mail rule with sign-ins", () => {
  it("does not count the new-browser notices of the accounts signed in to as duplicates or unexpected", () => {
    const received = new Map([
      ["a@x.test", 1],
      ["account@x.test", 3],
    ]);
    const registered = new Set(["a@x.test"]);
    expect(judgeMail(registered, registered, received).ok).toBe(false);
    expect(judgeMail(registered, registered, received, new Set(["account@x.test"]))).toMatchObject({
      duplicates: [],
      unexpected: [],
      ok: true,
    });
    // A registration's second mail still fails, whoever else gets mail.
    received.set("a@x.test", 2);
    expect(judgeMail(registered, registered, received, new Set(["account@x.test"])).ok).toBe(false);
  });
});
