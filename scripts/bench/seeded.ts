/**
 * `npm run bench -- --seeded [--accounts N] [--plans]` (issue #28): the hot paths at a million accounts. On SQLite
 * and on PostgreSQL (the embedded server the tests start), a database seeded by `npm run seed` (by default
 * 1,000,000 accounts, 2,000,000 sessions, 10,000,000 audit events) beside an empty one (the bench's few accounts):
 * the session check, password sign-in, registration, recovery request, profile read and refresh grant, each under
 * a steady load of a few connections, p50 and p99. Targets: every seeded p99 within 1.5× of the empty database's,
 * and a second round with another node's sweeper running through the load (bench/sweeper.ts) moves no p99 by
 * more than that. `--plans` prints the hot paths' query plans at the seeded size (bench/plans.ts).
 */
import type { ChildProcess } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { plainSignInFrom, seededEmail, seededPassword } from "../seed/rows.ts";
import { seedDatabase } from "../seed.ts";
import { startSolver } from "../soak/solver.ts";
import { gatewayEnv, ROOT, startGateway } from "./gateway.ts";
import { refreshGrant, refreshTokens } from "./oidc.ts";
import { queryPlans } from "./plans.ts";
import { freePort, start, stop } from "./processes.ts";
import { printReport, type Row } from "./report.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
/** Requests in flight at once for each path: a steady load, not a saturating one (2 cores here). */
const CONNECTIONS = 4;
/**
 * "Empty": the few accounts the loads use (2,000: enough that the recovery requests and sign-ins reach fresh
 * addresses, whose mails the quotas still allow, as they do among a million).
 */
const EMPTY_ACCOUNTS = 2000;
const SIGNED_IN = 16;
const REGISTRATIONS = Number(process.env.BENCH_REGISTRATIONS ?? 120);
const TARGET_RATIO = 1.5;
const REGISTRATION_PASSWORD = "quiet harbour lantern 42";

const PATHS = [
  "session check",
  "password sign-in",
  "registration",
  "recovery request",
  "profile read",
  "refresh grant",
] as const;
type PathName = (typeof PATHS)[number];

interface Latency {
  p50: number;
  p99: number;
  count: number;
  failures: number;
}
type Round = Record<PathName, Latency>;

let caller = 0;
/** Each request from an address of its own, as many people behind one load balancer (per-address limits). */
const nextAddress = () => {
  caller += 1;
  return `10.${(caller >> 16) & 255}.${(caller >> 8) & 255}.${caller & 255}`;
};

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
}

/**
 * Runs `once` on CONNECTIONS loops until `seconds` pass or `limit` requests have started; `once` answers the
 * milliseconds of the request it timed, or throws on a wrong answer (counted as a failure).
 */
async function timed(
  seconds: number,
  once: (loop: number) => Promise<number>,
  limit = Number.POSITIVE_INFINITY,
): Promise<{ times: number[]; failures: number }> {
  const until = performance.now() + seconds * 1000;
  const times: number[] = [];
  let started = 0;
  let failures = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async (_, loop) => {
      while (performance.now() < until && started < limit) {
        started += 1;
        try {
          times.push(await once(loop));
        } catch (error) {
          failures += 1;
          if (failures === 1) console.error(`  ! ${(error as Error).message}`);
        }
      }
    }),
  );
  return { times, failures };
}

function latency(times: number[], failures: number): Latency {
  const sorted = [...times].sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), count: sorted.length, failures };
}

/** One request, timed; throws unless it answers `status`. */
async function request(url: string, init: RequestInit, status: number): Promise<number> {
  const started = performance.now();
  const response = await fetch(url, init);
  const body = await response.text();
  const elapsed = performance.now() - started;
  if (response.status !== status)
    throw new Error(`${init.method ?? "GET"} ${url}: ${response.status} ${body.slice(0, 200)}`);
  return elapsed;
}

interface Visitor {
  cookie: string;
  csrf: string;
  address: string;
}

/** A visitor's cookies and CSRF token, as the first call of every page hands them out. */
async function visitor(base: string): Promise<Visitor> {
  const address = nextAddress();
  const response = await fetch(`${base}/api/session`, { headers: { "x-forwarded-for": address } });
  await response.text();
  const cookie = response.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  return { cookie, csrf: response.headers.get("x-csrf-token") ?? "", address };
}

const post = (v: Visitor, body: unknown): RequestInit => ({
  method: "POST",
  headers: {
    "content-type": "application/json",
    cookie: v.cookie,
    "x-csrf-token": v.csrf,
    "x-forwarded-for": v.address,
  },
  body: JSON.stringify(body),
});

/** A signed-in session's cookies. */
async function signIn(base: string, i: number): Promise<string> {
  const v = await visitor(base);
  const response = await fetch(
    `${base}/api/account/login`,
    post(v, { email: seededEmail(i), password: seededPassword(i) }),
  );
  if (response.status !== 200)
    throw new Error(`sign-in of ${seededEmail(i)}: ${response.status} ${await response.text()}`);
  const cookies = new Map(v.cookie.split("; ").map((pair) => pair.split("=") as [string, string]));
  for (const c of response.headers.getSetCookie()) {
    const [name, value] = (c.split(";")[0] as string).split("=") as [string, string];
    cookies.set(name, value);
  }
  return [...cookies].map(([name, value]) => `${name}=${value}`).join("; ");
}

/** Accounts spread over the whole population that a password signs in at once. */
const spread = (accounts: number, count: number) =>
  Array.from({ length: count }, (_, k) => plainSignInFrom(Math.floor((k * accounts) / count)) % accounts);

/** Registrations prepared ahead: a visitor each, with the proof of work its challenge asks already solved. */
async function prepareRegistrations(base: string, count: number, solver: ReturnType<typeof startSolver>) {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const v = await visitor(base);
      const challenge = await fetch(`${base}/api/captcha/challenge`, {
        headers: { cookie: v.cookie, "x-forwarded-for": v.address },
      });
      if (challenge.status !== 200) throw new Error(`captcha challenge: ${challenge.status}`);
      return {
        visitor: v,
        botCheck: await solver.solve((await challenge.json()) as Parameters<typeof solver.solve>[0]),
      };
    }),
  );
}

/** One path's request on one gateway: `once` times one request; `limit` caps the requests of a segment. */
interface PathLoad {
  once: (loop: number) => Promise<number>;
  limit: number;
}
type Paths = Record<PathName, PathLoad>;

let registered = 0;
/** Signs in, prepares registrations and refresh chains on the gateway at `base`: its six paths, ready to load. */
async function preparePaths(base: string, accounts: number, solver: ReturnType<typeof startSolver>): Promise<Paths> {
  const sessions = await Promise.all(spread(accounts, SIGNED_IN).map((i) => signIn(base, i)));
  const signers = spread(accounts, Math.min(accounts, 512));
  const anonymous = await visitor(base);
  const prepared = await prepareRegistrations(base, REGISTRATIONS, solver);
  // One refresh-token chain per loop, each from a sign-in of its own (a rotated token is spent).
  const owner = spread(accounts, 1)[0] as number;
  const chains = await refreshTokens(base, seededEmail(owner), seededPassword(owner), CONNECTIONS);
  let n = 0;
  const sessionAt = () => sessions[n++ % sessions.length] as string;
  const any = { limit: Number.POSITIVE_INFINITY };
  return {
    "session check": { ...any, once: () => request(`${base}/api/session`, { headers: { cookie: sessionAt() } }, 200) },
    "profile read": {
      ...any,
      once: () => request(`${base}/api/account/profile`, { headers: { cookie: sessionAt() } }, 200),
    },
    "password sign-in": {
      ...any,
      once: () => {
        const i = signers[n++ % signers.length] as number;
        const body = { email: seededEmail(i), password: seededPassword(i) };
        return request(`${base}/api/account/login`, post({ ...anonymous, address: nextAddress() }, body), 200);
      },
    },
    // Accounts all over the population, so no address meets its mail quota.
    "recovery request": {
      ...any,
      once: () => {
        const body = { email: seededEmail((n++ * 7919) % accounts) };
        return request(`${base}/api/account/recover`, post({ ...anonymous, address: nextAddress() }, body), 200);
      },
    },
    registration: {
      limit: Math.floor(REGISTRATIONS / 2),
      once: async () => {
        const next = prepared.pop();
        if (!next) throw new Error("registration: no prepared visitor left");
        const body = {
          email: `bench-r${registered++}-${Date.now()}@example.com`,
          password: REGISTRATION_PASSWORD,
          firstName: "Bench",
          lastName: "Seeded",
          countryCode: "de",
          newsletterSubscription: false,
          botCheck: next.botCheck,
        };
        return request(`${base}/api/account/register`, post(next.visitor, body), 200);
      },
    },
    "refresh grant": {
      ...any,
      once: async (loop) => {
        const started = performance.now();
        const answer = await refreshGrant(base, chains[loop] as string, "api");
        const elapsed = performance.now() - started;
        if (!answer.ok) throw new Error(`refresh grant: ${answer.status} ${answer.body.slice(0, 200)}`);
        chains[loop] = answer.token;
        return elapsed;
      },
    },
  };
}

/**
 * Each path on each gateway, in segments of the given order (A B B A: a drift of the shared machine's load during
 * a path hits both gateways alike); answers each gateway's latencies by path.
 */
async function measure(gateways: Paths[], order: number[]): Promise<Round[]> {
  const segments = order.length / gateways.length;
  const results = gateways.map(() => ({}) as Round);
  for (const path of PATHS) {
    const times: number[][] = gateways.map(() => []);
    const failures = gateways.map(() => 0);
    for (const g of order) {
      const load = (gateways[g] as Paths)[path];
      // Registrations are counted (each needs its proof of work ahead); a segment may take longer for them.
      const seconds = path === "registration" ? SECONDS * 10 : SECONDS / segments;
      const segment = await timed(seconds, load.once, load.limit);
      (times[g] as number[]).push(...segment.times);
      failures[g] = (failures[g] as number) + segment.failures;
    }
    for (const [g, result] of results.entries()) result[path] = latency(times[g] as number[], failures[g] as number);
  }
  return results;
}

/** Another node's sweeper on the database, running until stopped; its report says what it removed. */
function startSweeper(databaseUrl: string, dir: string): { child: ChildProcess; report: string } {
  const report = join(dir, `sweep-${Date.now()}.json`);
  return {
    child: start(ROOT, ["scripts/bench/sweeper.ts"], { DATABASE_URL: databaseUrl, SWEEP_REPORT: report }),
    report,
  };
}

function sweepSummary(report: string): string {
  if (!existsSync(report)) return "not one statement finished";
  const { how, totals, passes, statements, ms } = JSON.parse(readFileSync(report, "utf8")) as {
    how: string;
    totals: Record<string, number>;
    passes: number[];
    statements: { count: number; busyMs: number; longestMs: number };
    ms: number;
  };
  const removed = Object.entries(totals)
    .filter(([, count]) => count > 0)
    .map(([kind, count]) => `${kind} ${count.toLocaleString("en")}`)
    .join(", ");
  const finished = passes.length
    ? `${passes.length} passes finished (longest ${(Math.max(...passes) / 1000).toFixed(1)} s)`
    : "its first pass still under way";
  const busy = `${statements.count.toLocaleString("en")} statements, ${((100 * statements.busyMs) / ms).toFixed(0)}% of its time, longest ${statements.longestMs.toFixed(0)} ms`;
  return `${how}: ${finished}; ${busy}; removed ${removed || "nothing"}`;
}

const ms = (value: number) => (value >= 10 ? value.toFixed(0) : value.toFixed(1));
const pair = (l: Latency) =>
  `${ms(l.p50)} / ${ms(l.p99)} ms, n=${l.count}${l.failures ? `, ${l.failures} failed` : ""}`;

/** A database of `count` seeded accounts and the gateway on it, started as `npm start` runs it. */
async function seededGateway(label: string, databaseUrl: string, count: number, dir: string) {
  console.log(`${label}: seeding ${count.toLocaleString("en")} accounts…`);
  const seeded = await seedDatabase(databaseUrl, count, (line) => console.log(line));
  const rows = Object.values(seeded.rows).reduce((sum, r) => sum + r, 0);
  console.log(`  ${rows.toLocaleString("en")} rows in ${seeded.seconds.toFixed(0)} s`);
  const port = await freePort();
  const server = await startGateway(gatewayEnv({ databaseUrl, port, smtpUrl: "smtp://127.0.0.1:1", webDist: dir }));
  return { server, base: `http://127.0.0.1:${port}`, databaseUrl };
}

/** One database kind: an empty and a seeded database measured in turns, then the seeded one with the sweeper. */
async function measureOn(
  label: string,
  newDatabase: () => Promise<string>,
  accounts: number,
  options: { dir: string; plans: boolean; solver: ReturnType<typeof startSolver> },
): Promise<Row[]> {
  const empty = await seededGateway(`${label}, empty`, await newDatabase(), EMPTY_ACCOUNTS, options.dir);
  const seeded = await seededGateway(`${label}, seeded`, await newDatabase(), accounts, options.dir);
  // The plans first, while the seeded backlog is there for the sweeper's statements (each explained, rolled back).
  if (options.plans) {
    console.log(`\n${label}: query plans of the hot paths at ${accounts.toLocaleString("en")} accounts\n`);
    for (const plan of await queryPlans(seeded.databaseUrl))
      console.log(`-- ${plan.path}\n${plan.sql}\n${plan.plan}\n`);
  }
  let rounds: Round[];
  let sweepNote: string;
  try {
    console.log(`${label}: measuring the empty and the seeded database in turns…`);
    const [emptyPaths, seededPaths] = await Promise.all([
      preparePaths(empty.base, EMPTY_ACCOUNTS, options.solver),
      preparePaths(seeded.base, accounts, options.solver),
    ]);
    const [e, s] = await measure([emptyPaths as Paths, seededPaths as Paths], [0, 1, 1, 0]);
    console.log(`${label}: the seeded database again, with another node's sweeper running…`);
    const again = await preparePaths(seeded.base, accounts, options.solver);
    const sweeper = startSweeper(seeded.databaseUrl, options.dir);
    let w: Round;
    try {
      [w] = (await measure([again], [0, 0])) as [Round];
    } finally {
      await stop(sweeper.child);
    }
    sweepNote = sweepSummary(sweeper.report);
    rounds = [e as Round, s as Round, w];
  } finally {
    await Promise.all([stop(empty.server), stop(seeded.server)]);
  }
  // A seeded SQLite file is gigabytes at the full size.
  for (const url of [empty.databaseUrl, seeded.databaseUrl])
    if (url.startsWith("sqlite:"))
      for (const suffix of ["", "-wal", "-shm"]) rmSync(`${url.slice("sqlite:".length)}${suffix}`, { force: true });
  const [emptyRound, seededRound, sweepingRound] = rounds as [Round, Round, Round];
  const rows: Row[] = [];
  for (const path of PATHS) {
    const [e, s, w] = [emptyRound[path], seededRound[path], sweepingRound[path]] as [Latency, Latency, Latency];
    rows.push({ label: `${label}: ${path}, empty p50 / p99`, value: pair(e) });
    rows.push({
      label: `${label}: ${path}, seeded`,
      value: `${pair(s)} (${(s.p99 / e.p99).toFixed(2)}×)`,
      target: { text: `p99 ≤ ${TARGET_RATIO}× empty`, met: s.failures === 0 && s.p99 <= TARGET_RATIO * e.p99 },
    });
    rows.push({
      label: `${label}: ${path}, seeded + sweeper`,
      value: `${pair(w)} (${(w.p99 / s.p99).toFixed(2)}×)`,
      target: { text: `p99 ≤ ${TARGET_RATIO}× seeded`, met: w.failures === 0 && w.p99 <= TARGET_RATIO * s.p99 },
    });
  }
  rows.push({ label: `${label}: the sweeper during the second round`, value: sweepNote });
  // Printed as soon as they are known: a run of tens of minutes that breaks later keeps them.
  printReport(`${label}, ${accounts.toLocaleString("en")} seeded accounts`, rows);
  return rows;
}

/** Both databases at `accounts` accounts (two sessions and ten audit events each). */
export async function seededBench(dir: string, accounts: number, plans: boolean): Promise<Row[]> {
  const solver = startSolver();
  try {
    let sqliteFiles = 0;
    const rows = await measureOn("SQLite", async () => `sqlite:${join(dir, `seeded-${++sqliteFiles}.db`)}`, accounts, {
      dir,
      plans,
      solver,
    });
    const { startPostgres, createDatabase } = await import("../../packages/server/test/postgres.ts");
    const postgres = await startPostgres({ stopAtExit: true });
    try {
      rows.push(
        ...(await measureOn("PostgreSQL", () => createDatabase(postgres.url), accounts, { dir, plans, solver })),
      );
    } finally {
      await postgres.stop();
    }
    return rows;
  } finally {
    await solver.close();
  }
}
