import { randomUUID } from "node:crypto";
import type { FastifyBaseLogger } from "fastify";
import { describe, expect, it } from "vitest";
import { queueJob, startQueueWorker } from "../src/jobs/worker.ts";
import { queueMail } from "../src/mail/outbox.ts";
import { createTransport } from "../src/mail/transport.ts";
import { MAIL_JOB, mailJob } from "../src/mail/worker.ts";
import type { Db } from "../src/store/db.ts";
import { jobsStore } from "../src/store/jobs.ts";
import { outboxStore } from "../src/store/outbox.ts";
import { oneToN, useMigratedNodes } from "./pools.ts";
import { TestSmtp } from "./smtp.ts";

/**
 * Issue #14: "the outbox hands each mail to exactly one node". Every node's mail worker (and job worker) runs at the
 * same moment on one PostgreSQL, over several rounds; each mail must reach the SMTP server once and each job run once.
 * workers.test.ts covers the leases' lapse and take-over with a clock the test moves.
 */
const ROUNDS = 5;
const ascending = (values: number[]) => [...values].sort((a, b) => a - b);
const quiet = { info() {}, warn() {}, error() {} } as unknown as FastifyBaseLogger;

describe("the durable queues hand each item to exactly one node", () => {
  const nodes = useMigratedNodes();

  const db = () => nodes[0] as Db;

  const ITEMS = 40;

  it("the mail outbox: every node's worker running, each mail reaches the SMTP server once", async () => {
    // Guard: jobsStore.claim's conditional update (the lease; issue #28: mail is a job of the one queue). Checked: without its conditions on the lease and
    // the due time, every mail reached the SMTP server 4 times, once from each node.
    const smtp = await new TestSmtp().start();
    const workers = nodes.map((node) =>
      startQueueWorker({
        db: node,
        handlers: {
          [MAIL_JOB]: mailJob({ db: node, transport: createTransport(smtp.url), from: "gatehouse@example.com" }),
        },
        log: quiet,
        intervalMs: 3_600_000,
      }),
    );
    try {
      for (let round = 0; round < 3; round++) {
        const recipients = Array.from({ length: ITEMS }, (_, i) => `r${round}-${i}-${randomUUID()}@example.com`);
        for (const to of recipients)
          await queueMail(db(), { userId: null, to, kind: "race", subject: to, text: "hello", html: "<p>hello</p>" });
        // Every node's worker takes a pass at the same moment, and again until nothing is left.
        for (let pass = 0; pass < 5; pass++) await Promise.all(workers.map((worker) => worker.runOnce()));
        for (const to of recipients) expect(smtp.received.filter((mail) => mail.to.includes(to))).toHaveLength(1);
        const rows = await db().selectFrom("outbox").select("status").where("kind", "=", "race").execute();
        expect(rows.filter((row) => row.status !== "sent")).toEqual([]);
      }
    } finally {
      await Promise.all(workers.map((worker) => worker.stop()));
      await smtp.stop();
    }
  });

  it("the jobs table: every node's worker running, each job runs once", async () => {
    // Guard: jobsStore.claim's conditional update, as for the outbox. Checked: without its conditions, each job
    // ran 4 times.
    const runs = new Map<number, number>();
    const kind = `race-${randomUUID().slice(0, 8)}`;
    const handler = async (payload: unknown) => {
      const n = (payload as { n: number }).n;
      runs.set(n, (runs.get(n) ?? 0) + 1);
      await new Promise((resolve) => setImmediate(resolve));
    };
    const workers = nodes.map((node) =>
      startQueueWorker({ db: node, handlers: { [kind]: handler }, log: quiet, intervalMs: 3_600_000 }),
    );
    try {
      for (let round = 0; round < 3; round++) {
        const numbers = oneToN(ITEMS).map((i) => round * ITEMS + i);
        const ids: string[] = [];
        for (const n of numbers) ids.push(await queueJob(db(), kind, { n }));
        for (let pass = 0; pass < 5; pass++) await Promise.all(workers.map((worker) => worker.runOnce()));
        for (const n of numbers) expect(runs.get(n)).toBe(1);
        const done = (await jobsStore.list(db(), kind)).filter((job) => ids.includes(job.id) && job.status === "done");
        expect(done).toHaveLength(ITEMS);
      }
    } finally {
      await Promise.all(workers.map((worker) => worker.stop()));
    }
  });

  it("claims raced directly: of every node claiming every due mail at once, one claim per mail succeeds", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const ids: string[] = [];
      for (let i = 0; i < ITEMS; i++)
        ids.push(
          await queueMail(db(), {
            userId: null,
            to: `claim-${i}@example.com`,
            kind: "claim-race",
            subject: "s",
            text: "t",
            html: "h",
          }),
        );
      const now = Date.now();
      const jobs = (await jobsStore.list(db(), MAIL_JOB)).filter((job) =>
        ids.includes((JSON.parse(job.payload) as { outboxId: string }).outboxId),
      );
      const claims = await Promise.all(
        nodes.flatMap((node, n) =>
          jobs.map(async (job) =>
            (await jobsStore.claim(node, job.id, now, now + 60_000, `node-${n}`, 0))
              ? (JSON.parse(job.payload) as { outboxId: string }).outboxId
              : null,
          ),
        ),
      );
      const won = claims.filter((id): id is string => id !== null);
      expect(ascending(won.map((id) => ids.indexOf(id)))).toEqual(oneToN(ITEMS).map((n) => n - 1));
      for (const id of ids) await outboxStore.delete(db(), id);
      for (const job of jobs) await db().deleteFrom("jobs").where("id", "=", job.id).execute();
    }
  });
});
