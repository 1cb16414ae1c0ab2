/**
 * `npm run bench`: the gateway's performance targets of issue #9, measured on this machine (never a timed test).
 *  - GET /api/session signed in ÷ a Fastify route doing only the same primary-key read (target ≥ 0.8);
 *  - password sign-ins ÷ argon2id alone with every core busy (target ≥ 0.9);
 *  - the gateway's resident memory idle (≤ 150 MiB) and at its peak under the bench's loads (≤ 300 MiB);
 *  - OpenID Connect refresh-token grants per second and per core (issue #10, target ≥ 300/s per core);
 *  - passkey sign-ins per second beside the password's (issue #26; no target: a signature check, no argon2id);
 *  - the security page's three lists for one person with 200 sessions, 50 grants and 10,000 events, first page and
 *    a deep one, on SQLite and PostgreSQL (issue #27, target p99 < 50 ms). `npm run bench -- --security` runs these alone;
 *  - `npm run bench -- --seeded [--accounts N] [--plans]` (issue #28, run alone): the hot paths at a million seeded
 *    accounts beside an empty database, with and without the sweeper, and their query plans (bench/seeded.ts).
 * Every server runs in its own process; autocannon drives them over loopback. Every figure and target is printed
 * even when one is missed; the exit code is 0 unless the bench itself broke.
 */
import { mkdtempSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { sessionId } from "../packages/server/src/sessions/sessions.ts";
import { SoftAuthenticator } from "../packages/server/test/software-authenticator.ts";
import { measureHashing, measureParallelHashing } from "./bench/argon2.ts";
import { createAccounts, gatewayEnv, ROOT, startGateway } from "./bench/gateway.ts";
import { refreshLoad, refreshTokens } from "./bench/oidc.ts";
import { addPasskey, passkeyLoad } from "./bench/passkeys.ts";
import { cpuMicros, freePort, machine, peakSampler, ready, residentBytes, start, stop } from "./bench/processes.ts";
import { megabytes, printReport, type Row } from "./bench/report.ts";
import { securityLists } from "./bench/security.ts";
import { seededBench } from "./bench/seeded.ts";

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 8);
const PASSWORD = "quiet harbour lantern 42";
/** Idle memory is read after start-up and this much rest (the start-up's garbage has had time to go). */
const REST_MS = 5000;
const SAMPLE_EVERY_MS = 100;
/** What a browser sends: the session answer is measured as browsers ask for it. */
const BROWSER_ENCODINGS = "gzip, deflate, br, zstd";
const TARGETS = { sessionRatio: 0.8, signInRatio: 0.9, idleMiB: 150, peakMiB: 300, refreshPerCore: 300 };
const MIB = 1024 * 1024;

async function cannon(options: autocannon.Options): Promise<autocannon.Result> {
  const result = await autocannon({ duration: DURATION_S, connections: 10, ...options });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${options.url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result;
}

/** A load on one server process, with the CPU time that process spent per request (µs). */
async function load(pid: number, options: autocannon.Options) {
  const before = cpuMicros(pid);
  const result = await cannon(options);
  return { result, cpuMicros: cpuMicros(pid) - before };
}

/** µs of the server's CPU per request over several loads. */
const cpuPerRequest = (runs: { result: autocannon.Result; cpuMicros: number }[]) =>
  runs.reduce((sum, run) => sum + run.cpuMicros, 0) / runs.reduce((sum, run) => sum + run.result.requests.total, 0);

/** Requests/s of a run split in two halves around another measurement, so a drift of the machine's load hits both. */
async function around(pid: number, options: autocannon.Options, between: () => Promise<void>) {
  const half = { ...options, duration: DURATION_S / 2 };
  const before = await load(pid, half);
  await between();
  return [before, await load(pid, half)];
}

/** A visitor's cookie and CSRF token, then a signed-in session's cookie and token. */
async function signIn(base: string, email: string) {
  const anonymous = await fetch(`${base}/api/session`);
  const anonCookie = (anonymous.headers.getSetCookie()[0] ?? "").split(";")[0] as string;
  const csrf = anonymous.headers.get("x-csrf-token") as string;
  const login = await fetch(`${base}/api/account/login`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie: anonCookie, "x-csrf-token": csrf },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  if (!login.ok) throw new Error(`sign-in failed: ${login.status} ${await login.text()}`);
  const sessionCookie = (login.headers.getSetCookie()[0] ?? "").split(";")[0] as string;
  return { anonCookie, csrf, sessionCookie, sessionToken: sessionCookie.split("=")[1] as string };
}

/**
 * Sign-ins spread over several accounts, as real traffic is (one account's attempts are counted before they are
 * verified, docs/decisions.md "Counted before verified"), from many client addresses behind one load balancer, so
 * the per-address limit measures nothing here.
 */
function signInLoad(base: string, accounts: string[], anonCookie: string, csrf: string, cores: number) {
  let client = 0;
  return cannon({
    url: `${base}/api/account/login`,
    method: "POST",
    connections: cores * 4,
    headers: { "content-type": "application/json", cookie: anonCookie, "x-csrf-token": csrf },
    body: JSON.stringify({ email: accounts[0], password: PASSWORD }),
    requests: [
      {
        setupRequest: (request) => {
          client += 1;
          return {
            ...request,
            body: JSON.stringify({ email: accounts[client % accounts.length], password: PASSWORD }),
            headers: {
              ...request.headers,
              "x-forwarded-for": `10.${(client >> 16) & 255}.${(client >> 8) & 255}.${client & 255}`,
            },
          };
        },
      },
    ],
  });
}

async function main() {
  const cores = availableParallelism();
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-bench-"));
  if (process.argv.includes("--security")) {
    printReport(`Gatehouse benchmark, the security page's lists — ${machine(cores)}`, await securityLists(dir));
    return;
  }
  if (process.argv.includes("--seeded")) {
    const at = process.argv.indexOf("--accounts");
    const accounts = at > 0 ? Number(process.argv[at + 1]) : 1_000_000;
    const rows = await seededBench(dir, accounts, process.argv.includes("--plans"));
    printReport(`Gatehouse benchmark, ${accounts.toLocaleString("en")} seeded accounts — ${machine(cores)}`, rows);
    return;
  }

  const helloUrl = `http://127.0.0.1:${await freePort()}/`;
  const hello = start(ROOT, ["scripts/bench/hello-server.ts"], { PORT: new URL(helloUrl).port });
  await ready(helloUrl, hello);
  const helloResult = await cannon({ url: helloUrl });
  await stop(hello);

  const accounts = Array.from({ length: cores * 8 }, (_, i) => `bench${i}@example.com`);
  const port = await freePort();
  // The bench sends no mail: nothing ever connects to the SMTP address production requires.
  const env = gatewayEnv({
    databaseUrl: `sqlite:${join(dir, "bench.db")}`,
    port,
    smtpUrl: "smtp://127.0.0.1:1",
    webDist: dir,
  });
  await createAccounts(env, accounts, PASSWORD);
  const base = `http://127.0.0.1:${port}`;
  const server = await startGateway(env);
  const pid = server.pid as number;
  await new Promise((r) => setTimeout(r, REST_MS));
  const idle = residentBytes(pid) ?? Number.NaN;

  // The memory peak of each load, sampled apart, so a peak over target says which load made it.
  const peaks: Record<string, number> = {};
  const sampled = async <T>(name: string, load: () => Promise<T>): Promise<T> => {
    const sampler = peakSampler(pid, SAMPLE_EVERY_MS);
    try {
      return await load();
    } finally {
      peaks[name] = sampler.stop();
    }
  };
  const { anonCookie, csrf, sessionCookie, sessionToken } = await signIn(base, accounts[0] as string);
  const headers = { cookie: sessionCookie, "accept-encoding": BROWSER_ENCODINGS };
  // The baseline: the same read on the same file for the same session, in a bare Fastify app of its own, measured
  // between the two halves of the session's run.
  const baselineUrl = `http://127.0.0.1:${await freePort()}/`;
  const baseline = start(ROOT, ["scripts/bench/baseline-server.ts"], {
    DATABASE_URL: env.DATABASE_URL,
    SESSION_ID: sessionId(sessionToken),
    PORT: new URL(baselineUrl).port,
  });
  await ready(baselineUrl, baseline);
  let baselineRun: Awaited<ReturnType<typeof load>> | undefined;
  const sessionLoads = await sampled("session", () =>
    around(pid, { url: `${base}/api/session`, headers }, async () => {
      baselineRun = await load(baseline.pid as number, { url: baselineUrl, headers });
    }),
  );
  const sessionRuns = sessionLoads.map((run) => run.result);
  await stop(baseline);

  // The largest API answer, as a browser asks for it (brotli).
  const countries = await sampled("countries", () =>
    cannon({
      url: `${base}/api/countries`,
      headers: { "accept-encoding": BROWSER_ENCODINGS, "accept-language": "de" },
    }),
  );
  // A desktop app's refresh grants (rotating refresh token, a JWT for the API each time), four chains per core:
  // first as the app asks when it wants an ID token too, then for the API alone (`scope=api`, no ID token to sign),
  // as docs/protocols.md "The flows" tells desktop apps to refresh. Each load has chains of its own (a rotated token is spent).
  const refreshRun = async (name: string, scope?: string) => {
    const chains = await refreshTokens(base, accounts[1] as string, PASSWORD, cores * 4);
    return sampled(name, async () => {
      const result = await refreshLoad(base, chains, DURATION_S, scope);
      if (result.failures > 0) throw new Error(`${name}: ${result.failures} chains refused`);
      return result;
    });
  };
  const fullRefreshes = await refreshRun("refresh grants with an ID token");
  const refreshes = await refreshRun("refresh grants", "api");
  // Argon2id alone, measured right before the sign-ins (and its with-every-core-busy rate once more right after).
  const hashing = await measureHashing(PASSWORD);
  const signIns = await sampled("sign-ins", () => signInLoad(base, accounts, anonCookie, csrf, cores));
  const parallelRate = (hashing.parallelRate + (await measureParallelHashing(PASSWORD))) / 2;
  // Passkey sign-ins (issue #26): the accounts after the first two get a passkey, then sign in with it alone.
  const passkeyAccounts = accounts.slice(2, 2 + cores * 4);
  const authenticators = passkeyAccounts.map(() => new SoftAuthenticator(base));
  for (const [i, email] of passkeyAccounts.entries())
    await addPasskey(base, email, PASSWORD, authenticators[i] as SoftAuthenticator);
  const passkeys = await sampled("passkey sign-ins", () => passkeyLoad(base, authenticators, cores * 4, DURATION_S));
  if (passkeys.failures > 0) throw new Error(`passkey sign-ins: ${passkeys.failures} refused`);
  const peakBytes = Math.max(...Object.values(peaks));
  await stop(server);

  const helloRps = helloResult.requests.average;
  const sessionRps = sessionRuns.reduce((sum, run) => sum + run.requests.average, 0) / sessionRuns.length;
  const sessionP99 = Math.max(...sessionRuns.map((run) => run.latency.p99));
  const baselineRps = (baselineRun as Awaited<ReturnType<typeof load>>).result.requests.average;
  const baselineCpu = cpuPerRequest([baselineRun as Awaited<ReturnType<typeof load>>]);
  const sessionCpu = cpuPerRequest(sessionLoads);
  const signInRps = signIns.requests.average;
  const sessionRatio = sessionRps / baselineRps;
  const refreshRps = refreshes.rate;
  const refreshPerCore = refreshRps / cores;
  const signInRatio = signInRps / parallelRate;
  const rows: Row[] = [
    { label: "Fastify hello-world", value: `${helloRps.toFixed(0)} req/s` },
    { label: "baseline: Fastify + the same session read", value: `${baselineRps.toFixed(0)} req/s` },
    {
      label: "GET /api/session (signed in)",
      value: `${sessionRps.toFixed(0)} req/s, p99 ${sessionP99} ms`,
    },
    {
      label: "session ÷ baseline",
      value: sessionRatio.toFixed(2),
      target: { text: `≥ ${TARGETS.sessionRatio}`, met: sessionRatio >= TARGETS.sessionRatio },
    },
    { label: "session ÷ hello-world", value: (sessionRps / helloRps).toFixed(2) },
    // The same comparison by the servers' own CPU time, which the load generator sharing the cores does not blur.
    {
      label: "server CPU per request: baseline / session",
      value: `${baselineCpu.toFixed(1)} / ${sessionCpu.toFixed(1)} µs (ratio ${(baselineCpu / sessionCpu).toFixed(2)})`,
    },
    {
      label: "GET /api/countries (8 KB JSON, brotli at start)",
      value: `${countries.requests.average.toFixed(0)} req/s, p99 ${countries.latency.p99} ms`,
    },
    {
      label: "POST /oidc/token refresh, JWT + ID token",
      value: `${fullRefreshes.rate.toFixed(0)} grants/s (${(fullRefreshes.rate / cores).toFixed(0)} per core), p99 ${fullRefreshes.p99Ms} ms`,
    },
    {
      label: "POST /oidc/token refresh, JWT (scope=api)",
      value: `${refreshRps.toFixed(0)} grants/s, p99 ${refreshes.p99Ms} ms`,
    },
    {
      label: "refresh grants per core (scope=api)",
      value: `${refreshPerCore.toFixed(0)} grants/s`,
      target: { text: `≥ ${TARGETS.refreshPerCore}/s`, met: refreshPerCore >= TARGETS.refreshPerCore },
    },
    { label: "argon2id hash (m=19 MiB, t=2, p=1), median", value: `${hashing.hashMs.toFixed(1)} ms` },
    { label: "hashing limit (cores ÷ hash time)", value: `${hashing.limit.toFixed(1)} hashes/s` },
    { label: "argon2id alone with every core busy", value: `${parallelRate.toFixed(1)} hashes/s` },
    { label: "POST /api/account/login", value: `${signInRps.toFixed(1)} sign-ins/s, p99 ${signIns.latency.p99} ms` },
    {
      label: "sign-ins ÷ argon2id with every core busy",
      value: signInRatio.toFixed(2),
      target: { text: `≥ ${TARGETS.signInRatio}`, met: signInRatio >= TARGETS.signInRatio },
    },
    { label: "sign-ins ÷ hashing limit", value: (signInRps / hashing.limit).toFixed(2) },
    {
      label: "passkey sign-ins (options + assertion)",
      value: `${passkeys.rate.toFixed(1)} sign-ins/s (${(passkeys.rate / signInRps).toFixed(1)}× the password's), p99 ${passkeys.p99Ms} ms`,
    },
    {
      label: `gateway RSS idle (after ${REST_MS / 1000} s of rest)`,
      value: megabytes(idle),
      target: { text: `≤ ${TARGETS.idleMiB} MiB`, met: idle <= TARGETS.idleMiB * MIB },
    },
    {
      label: "gateway RSS peak under load (every 100 ms)",
      value: `${megabytes(peakBytes)} (${Object.entries(peaks)
        .map(([name, bytes]) => `${name} ${megabytes(bytes)}`)
        .join(", ")})`,
      target: { text: `≤ ${TARGETS.peakMiB} MiB`, met: peakBytes <= TARGETS.peakMiB * MIB },
    },
  ];
  rows.push(...(await securityLists(dir)));
  printReport(`Gatehouse benchmark — ${machine(cores)}, ${DURATION_S} s per run`, rows);
}

try {
  await main();
  process.exit(0);
} catch (error) {
  console.error(error);
  process.exit(1);
}
