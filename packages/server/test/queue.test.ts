import { DatabaseSync } from "node:sqlite";
import { MAIL_RETRY } from "@gatehouse/contract";
import type { FastifyBaseLogger } from "fastify";
import { Migrator, sql } from "kysely";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { type JobHandler, type JobWorker, QUEUE_LEASE_MS, queueJob, startQueueWorker } from "../src/jobs/worker.ts";
import { queueMail } from "../src/mail/outbox.ts";
import type { MailTransport, OutgoingMail } from "../src/mail/transport.ts";
import { MAIL_JOB, mailJob } from "../src/mail/worker.ts";
import { type Db, migrate, openDatabase } from "../src/store/db.ts";
import { jobsStore } from "../src/store/jobs.ts";
import { migrationProvider } from "../src/store/migrations/index.ts";
import { outboxStore } from "../src/store/outbox.ts";
import { type DatabaseName, describeDatabases, freshPostgres, tempDir, twoNodes } from "./harness.ts";
import { refuseWrites } from "./refuse-writes.ts";

/**
 * Issue #28: the one durable queue's lease. A claim's lease is short (30 s) and renewed by a heartbeat while the
 * handler runs; renewals and the finish name the claim's random token. The clock is the test's (a handler "takes"
 * a minute in no time); the heartbeat's timer is real and short, and the test waits for its renewals.
 */
const quiet = { info() {}, warn() {}, error() {} } as unknown as FastifyBaseLogger;
const HOUR = 3_600_000;
const BEAT_MS = 10;

const databases: [DatabaseName, () => Promise<string>][] = [
  ["SQLite", async () => `sqlite:${tempDir()}/queue.db`],
  ["PostgreSQL", freshPostgres],
];

describeDatabases(databases)("the queue's lease on %s", (_name, url) => {
  let db: Db;
  /** The second node's connection (harness.ts twoNodes). */
  let other: Db;
  let close = async () => {};
  let now = 2_000_000_000;
  const clock = () => now;

  let databaseUrl = "";

  beforeAll(async () => {
    databaseUrl = await url();
    ({ db, other, close } = await twoNodes(databaseUrl));
  });
  afterAll(() => close());

  const worker = (on: Db, handlers: Record<string, JobHandler>, heartbeatMs = BEAT_MS): JobWorker =>
    startQueueWorker({ db: on, handlers, log: quiet, intervalMs: HOUR, clock, heartbeatMs });

  const leaseOf = async (id: string) => Number((await jobsStore.findById(db, id))?.claimed_until);

  /** Waits until the heartbeat has renewed the job's lease at the clock's present time. */
  const renewedNow = (id: string) => vi.waitFor(async () => expect(await leaseOf(id)).toBe(now + QUEUE_LEASE_MS));

  it("keeps the lease of a handler that runs twice as long as the lease: no other node takes the job", async () => {
    // Guard: the heartbeat (jobs/worker.ts). Checked: with the renewal turned off, the other node ran the job too.
    const runs: string[] = [];
    let id = "";
    let second: JobWorker | undefined;
    const first = worker(db, {
      slow: async () => {
        runs.push("first");
        // A minute of SMTP exchange, in steps shorter than the lease, each renewed before the other node looks.
        for (let step = 0; step < 4; step++) {
          now += 15_000;
          await renewedNow(id);
          await second?.runOnce();
        }
      },
    });
    second = worker(other, { slow: async () => void runs.push("second") });
    id = await queueJob(db, "slow", {}, now);
    await first.runOnce();
    expect(runs).toEqual(["first"]);
    expect(await jobsStore.findById(db, id)).toMatchObject({ status: "done", attempts: 0, lease_token: null });
    await Promise.all([first.stop(), second.stop()]);
  });

  it("takes over a job whose holder stopped renewing (a node killed) once its lease has lapsed", async () => {
    const runs: string[] = [];
    const survivor = worker(other, { orphan: async () => void runs.push("survivor") });
    const id = await queueJob(db, "orphan", {}, now);
    // A node claims it and dies: nothing renews the lease.
    expect(await jobsStore.claim(db, id, now, now + QUEUE_LEASE_MS, "dead-node", 0)).toBe(true);
    now += QUEUE_LEASE_MS - 1;
    await survivor.runOnce();
    expect(runs).toEqual([]);
    now += 2;
    await survivor.runOnce();
    expect(runs).toEqual(["survivor"]);
    expect(await jobsStore.findById(db, id)).toMatchObject({ status: "done" });
    // The dead node's finish, were it to come back, is refused: its token is not the lease's.
    expect(await jobsStore.markDone(db, id, now, "dead-node")).toBe(false);
    expect(await jobsStore.renew(db, id, "dead-node", now + QUEUE_LEASE_MS)).toBe(false);
    await survivor.stop();
  });

  /**
   * Takes the database away for real until the returned function is called: on PostgreSQL a trigger fails every
   * update of a job with 57P01 (admin_shutdown, what a restart's connections get); on SQLite another connection holds
   * the write lock (the worker's connection gives up after a short busy timeout).
   */
  async function databaseAway(): Promise<() => Promise<void>> {
    if (databaseUrl.startsWith("sqlite:")) {
      const holder = new DatabaseSync(databaseUrl.slice("sqlite:".length));
      holder.exec("begin immediate");
      return async () => {
        holder.exec("rollback");
        holder.close();
      };
    }
    return refuseWrites(db, { table: "jobs", event: "update", errcode: "57P01" });
  }

  it("records a finish the database refused once it is back, within the lease: no node runs the job again", async () => {
    // Guard: withinLease (jobs/worker.ts; the soak's PostgreSQL restart sent one mail twice). Checked: without it,
    // the finish failed, the job stayed claimed, and the other node ran it again once the lease lapsed.
    const runs: string[] = [];
    const id = await queueJob(db, "sent", {}, now);
    let back: (() => Promise<void>) | undefined;
    const waits: string[] = [];
    const log = { ...quiet, warn: (_fields: unknown, message: string) => void waits.push(message) };
    // The handler's work is done (the SMTP server has the mail) when the database goes away.
    const handlers = {
      sent: async () => {
        runs.push("first");
        back = await databaseAway();
      },
    };
    const sqlite = databaseUrl.startsWith("sqlite:");
    const own = sqlite ? openDatabase(databaseUrl, { busyTimeoutMs: 20 }).db : db;
    const first = startQueueWorker({
      db: own,
      handlers,
      log: log as unknown as FastifyBaseLogger,
      intervalMs: HOUR,
      clock,
      heartbeatMs: BEAT_MS,
    });
    const finishing = first.runOnce();
    try {
      await vi.waitFor(() => expect(waits).toContain("job finish waits for the database"));
    } finally {
      await back?.();
    }
    await finishing;
    expect(await jobsStore.findById(db, id)).toMatchObject({ status: "done", lease_token: null });
    now += QUEUE_LEASE_MS + 1;
    const second = worker(other, { sent: async () => void runs.push("second") });
    await second.runOnce();
    expect(runs).toEqual(["first"]);
    await Promise.all([first.stop(), second.stop()]);
    if (own !== db) await own.destroy();
  });

  it("refuses a finish and a renewal under a stale token while another claim holds the job", async () => {
    // Guard: markDone/markRetry/renew name the claim's token. Checked: without the token's condition in markDone and
    // markRetry, the stale holder finished (and reopened) the job that the new claim was still running.
    const id = await queueJob(db, "stale-token", {}, now);
    expect(await jobsStore.claim(db, id, now, now + QUEUE_LEASE_MS, "stale", 0)).toBe(true);
    now += QUEUE_LEASE_MS + 1;
    expect(await jobsStore.claim(other, id, now, now + QUEUE_LEASE_MS, "current", 0)).toBe(true);
    expect(await jobsStore.renew(db, id, "stale", now + QUEUE_LEASE_MS + 5)).toBe(false);
    expect(await jobsStore.markRetry(db, id, "stale", 1, now, "late failure", false)).toBe(false);
    expect(await jobsStore.markDone(db, id, now, "stale")).toBe(false);
    expect(await jobsStore.findById(db, id)).toMatchObject({
      status: "pending",
      attempts: 0,
      lease_token: "current",
      claimed_until: now + QUEUE_LEASE_MS,
    });
    expect(await jobsStore.renew(other, id, "current", now + QUEUE_LEASE_MS + 5)).toBe(true);
    expect(await jobsStore.markDone(other, id, now, "current")).toBe(true);
  });

  it("refuses the finish of a worker whose lease was taken over, and its renewals stop", async () => {
    // The late failure of the first worker must not reopen the job the second finished (token and status guard it).
    const runs: string[] = [];
    let id = "";
    let second: JobWorker | undefined;
    // The first worker's heartbeat is an hour: a stalled process (a long pause) that cannot renew in time.
    const first = worker(
      db,
      {
        stalled: async () => {
          runs.push("first");
          now += QUEUE_LEASE_MS + 1;
          await second?.runOnce();
          throw new Error("timed out at last");
        },
      },
      HOUR,
    );
    second = worker(other, { stalled: async () => void runs.push("second") });
    id = await queueJob(db, "stalled", {}, now);
    await first.runOnce();
    expect(runs).toEqual(["first", "second"]);
    expect(await jobsStore.findById(db, id)).toMatchObject({ status: "done", attempts: 0, last_error: null });
    now += HOUR;
    await first.runOnce();
    await second.runOnce();
    expect(runs).toEqual(["first", "second"]);
    await Promise.all([first.stop(), second.stop()]);
  });

  it("stops renewing when a renewal finds the lease taken, and never finishes the job", async () => {
    let id = "";
    let taken = false;
    const warnings: string[] = [];
    const log = { ...quiet, warn: (_fields: unknown, message: string) => void warnings.push(message) };
    const first = startQueueWorker({
      db,
      handlers: {
        lost: async () => {
          // Another claim replaces this one (its lease had lapsed while the process was paused).
          now += QUEUE_LEASE_MS + 1;
          taken = await jobsStore.claim(other, id, now, now + QUEUE_LEASE_MS, "another-node", 0);
          // The heartbeat's next renewal finds another token and says so; the lease stays the other node's.
          await vi.waitFor(() => expect(warnings).toContain("job lease lost while running; another worker has it"));
        },
      },
      log: log as unknown as FastifyBaseLogger,
      intervalMs: HOUR,
      clock,
      heartbeatMs: BEAT_MS,
    });
    id = await queueJob(db, "lost", {}, now);
    await first.runOnce();
    expect(taken).toBe(true);
    expect(warnings).toContain("job done after its lease was lost; another worker has it");
    expect(await jobsStore.findById(db, id)).toMatchObject({
      status: "pending",
      lease_token: "another-node",
      claimed_until: now + QUEUE_LEASE_MS,
    });
    await first.stop();
  });

  it("retries a failed job with back-off and gives up after MAIL_RETRY's attempts", async () => {
    let calls = 0;
    const failing = worker(db, {
      failing: async () => {
        calls += 1;
        throw new Error("forum down");
      },
    });
    const id = await queueJob(db, "failing", {}, now);
    await failing.runOnce();
    const retried = await jobsStore.findById(db, id);
    expect(retried).toMatchObject({ status: "pending", attempts: 1, last_error: "forum down", lease_token: null });
    expect(Number(retried?.next_attempt_at)).toBe(now + 10_000);
    for (let i = 0; i < 100 && (await jobsStore.findById(db, id))?.status === "pending"; i++) {
      now += HOUR;
      await failing.runOnce();
    }
    expect(await jobsStore.findById(db, id)).toMatchObject({ status: "failed" });
    expect(calls).toBe(MAIL_RETRY.maxAttempts);
    await failing.stop();
  });

  it("sends mail as a job: marked sent with its job, failures recorded on the message", async () => {
    const sent: string[] = [];
    let failNext = true;
    const transport: MailTransport = {
      kind: "smtp",
      send: async (mail: OutgoingMail) => {
        if (failNext) {
          failNext = false;
          throw new Error("421 try later");
        }
        sent.push(mail.subject);
      },
      close() {},
    };
    const mailer = startQueueWorker({
      db,
      handlers: { [MAIL_JOB]: mailJob({ db, transport, from: "gatehouse@example.com" }) },
      log: quiet,
      intervalMs: HOUR,
      clock,
    });
    const id = await queueMail(
      db,
      { userId: null, to: "q@example.com", kind: "test", subject: "queued", text: "t", html: "h" },
      now,
    );
    await mailer.runOnce();
    expect(await outboxStore.findById(db, id)).toMatchObject({
      status: "pending",
      attempts: 1,
      last_error: "421 try later",
    });
    now += HOUR;
    await mailer.runOnce();
    expect(sent).toEqual(["queued"]);
    // Scrubbed: a real SMTP server has it.
    expect(await outboxStore.findById(db, id)).toMatchObject({ status: "sent", text_body: "", html_body: "" });
    await mailer.stop();
  });

  it("does not let kinds this node cannot run fill its batch: mail behind them still goes", async () => {
    const sent: string[] = [];
    const transport: MailTransport = { kind: "smtp", send: async (m) => void sent.push(m.subject), close() {} };
    const mailer = startQueueWorker({
      db,
      handlers: { [MAIL_JOB]: mailJob({ db, transport, from: "gatehouse@example.com" }) },
      log: quiet,
      intervalMs: HOUR,
      clock,
    });
    // More jobs for the forum (not configured on this node) than a batch holds, all due before the mail.
    for (let i = 0; i < 30; i++) await queueJob(db, "elsewhere", { i }, now - 1000);
    await queueMail(
      db,
      { userId: null, to: "b@example.com", kind: "test", subject: "behind", text: "t", html: "h" },
      now,
    );
    await mailer.runOnce();
    expect(sent).toEqual(["behind"]);
    await mailer.stop();
  });
});

describeDatabases(databases)("migration 018 on %s with mail waiting", (_name, url) => {
  it("carries pending outbox mail over as mail jobs, which the queue then sends once", async () => {
    const { db } = openDatabase(await url());
    try {
      const { error } = await new Migrator({ db, provider: migrationProvider }).migrateTo("017-activity-order");
      expect(error).toBeUndefined();
      const now = Date.now();
      const row = (id: string, status: string, claimedUntil: number | null, attempts = 0) =>
        sql`insert into outbox (id, user_id, recipient, kind, subject, text_body, html_body, status, attempts,
          next_attempt_at, claimed_until, last_error, created_at, sent_at)
          values (${id}, null, ${`${id}@example.com`}, 'password_reset', ${id}, 'text', 'html', ${status},
          ${attempts}, ${now - 1000}, ${claimedUntil}, null, ${now - 5000}, null)`.execute(db);
      await row("waiting", "pending", null);
      await row("retrying", "pending", null, 2);
      // Held by a node of the release before (its lease runs 10 minutes): the job waits for that lease.
      await row("held", "pending", now + 600_000);
      await row("delivered", "sent", null);
      await sql`insert into jobs (id, kind, payload, status, attempts, next_attempt_at, claimed_until, last_error,
        created_at, done_at) values ('old-job', 'forum_log_out', '{}', 'pending', 0, ${now}, null, null, ${now}, null)`.execute(
        db,
      );
      await expect(migrate(db)).resolves.toEqual([]);

      const mailJobs = await jobsStore.list(db, MAIL_JOB);
      const byMail = new Map(mailJobs.map((job) => [(JSON.parse(job.payload) as { outboxId: string }).outboxId, job]));
      expect([...byMail.keys()].sort()).toEqual(["held", "retrying", "waiting"]);
      expect(byMail.get("retrying")).toMatchObject({ status: "pending", attempts: 2, lease_token: null });
      expect(Number(byMail.get("held")?.next_attempt_at)).toBe(now + 600_000);
      expect(await jobsStore.findById(db, "old-job")).toMatchObject({ status: "pending", lease_token: null });
      // A node of the release before skips every pending message now (held for good in the outbox).
      const legacyDue = await db
        .selectFrom("outbox")
        .select("id")
        .where("status", "=", "pending")
        .where((eb) => eb.or([eb("claimed_until", "is", null), eb("claimed_until", "<", now + HOUR)]))
        .execute();
      expect(legacyDue).toEqual([]);

      const sent: string[] = [];
      const transport: MailTransport = { kind: "smtp", send: async (m) => void sent.push(m.subject), close() {} };
      let at = now;
      const mailer = startQueueWorker({
        db,
        handlers: { [MAIL_JOB]: mailJob({ db, transport, from: "gatehouse@example.com" }) },
        log: quiet,
        intervalMs: HOUR,
        clock: () => at,
      });
      await mailer.runOnce();
      expect(sent.sort()).toEqual(["retrying", "waiting"]);
      at = now + 600_001;
      await mailer.runOnce();
      await mailer.runOnce();
      expect(sent.sort()).toEqual(["held", "retrying", "waiting"]);
      for (const id of ["held", "retrying", "waiting"])
        expect((await outboxStore.findById(db, id))?.status, id).toBe("sent");
      await mailer.stop();
    } finally {
      await db.destroy();
    }
  });
});
