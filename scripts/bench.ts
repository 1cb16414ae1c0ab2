/**
 * `npm run bench`: the performance targets of issue #2, measured on this machine (not a timed test).
 *  - GET /api/session requests/s for a signed-in user vs a Fastify hello-world in the same run (target ≥ 0.5×);
 *  - password sign-ins/s vs the hashing limit, cores ÷ argon2id time (target ≥ 0.85).
 * Each server runs in its own process; autocannon drives them over loopback.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { hash } from "@node-rs/argon2";
import autocannon from "autocannon";

const ROOT = resolve(import.meta.dirname, "..");
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 8);
const PASSWORD = "quiet harbour lantern 42";

function start(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
}

async function ready(url: string) {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer`);
}

async function cannon(options: autocannon.Options): Promise<autocannon.Result> {
  const result = await autocannon({ duration: DURATION_S, connections: 10, ...options });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${options.url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result;
}

const HELLO = `
import Fastify from "fastify";
const app = Fastify();
app.get("/", async () => ({ hello: "world" }));
await app.listen({ port: Number(process.env.PORT), host: "127.0.0.1" });
`;

async function main() {
  const cores = availableParallelism();
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-bench-"));

  // Argon2id time on this machine, with the parameters sign-in uses.
  const { ARGON2_PARAMS } = await import("../packages/server/src/accounts/passwords.ts");
  await hash("warm up", ARGON2_PARAMS);
  const times: number[] = [];
  for (let i = 0; i < 15; i++) {
    const t = performance.now();
    await hash(`${PASSWORD}${i}`, ARGON2_PARAMS);
    times.push(performance.now() - t);
  }
  const hashMs = times.sort((a, b) => a - b)[Math.floor(times.length / 2)] as number;
  const hashLimit = (cores * 1000) / hashMs;
  // What the machine really hashes with every core busy: argon2id is memory-hard, so it need not scale linearly.
  const parallelStart = performance.now();
  await Promise.all(
    Array.from({ length: cores }, async (_, c) => {
      for (let i = 0; i < 15; i++) await hash(`${PASSWORD}${c}:${i}`, ARGON2_PARAMS);
    }),
  );
  const parallelRate = (cores * 15 * 1000) / (performance.now() - parallelStart);

  // A Fastify hello-world, measured in the same run.
  const hello = start(["--input-type=module", "-e", HELLO], { PORT: "18181" });
  hello.unref();
  await ready("http://127.0.0.1:18181/");
  const helloResult = await cannon({ url: "http://127.0.0.1:18181/" });
  hello.kill();

  // Gatehouse itself, as `npm start` runs it, on a fresh SQLite file.
  const databaseUrl = `sqlite:${join(dir, "bench.db")}`;
  const env = {
    DATABASE_URL: databaseUrl,
    PORT: "18182",
    HOST: "127.0.0.1",
    PUBLIC_URL: "http://127.0.0.1:18182",
    LOG_LEVEL: "warn",
    NODE_ENV: "production",
    // Required in production; the bench sends no mail, so nothing ever connects to it.
    SMTP_URL: "smtp://127.0.0.1:1",
    SESSION_SECRET: "bench-secret-bench-secret-bench-secret",
    TRUST_PROXY: "true",
    WEB_DIST: dir,
  };
  // Sign-ins are spread over several accounts, as real traffic is: one account's attempts are counted before they
  // are verified (docs/decisions.md "Counted before verified"), so one account signing in on many connections at
  // once would spend its own allowance. The first account migrates the fresh database; the rest follow together.
  const accounts = Array.from({ length: cores * 8 }, (_, i) => `bench${i}@example.com`);
  const createAccount = async (email: string) => {
    const admin = spawn(
      process.execPath,
      [
        "packages/server/src/admin/cli.ts",
        "user:create",
        ...["--email", email, "--password", PASSWORD, "--first", "Ben", "--last", "Ch", "--country", "DE"],
      ],
      { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "inherit"] },
    );
    const created = await new Promise<number | null>((done) => admin.once("exit", done));
    if (created !== 0) throw new Error(`user:create ${email} failed (see above)`);
  };
  await createAccount(accounts[0] as string);
  await Promise.all(accounts.slice(1).map(createAccount));
  const server = start(["packages/server/src/main.ts"], env);
  await ready("http://127.0.0.1:18182/readyz");
  const base = "http://127.0.0.1:18182";

  // A visitor's cookie and CSRF token, then a signed-in session.
  const anonymous = await fetch(`${base}/api/session`);
  const anonCookie = (anonymous.headers.getSetCookie()[0] ?? "").split(";")[0] as string;
  const csrf = anonymous.headers.get("x-csrf-token") as string;
  const loginBody = JSON.stringify({ email: accounts[0], password: PASSWORD });
  const login = await fetch(`${base}/api/account/login`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie: anonCookie, "x-csrf-token": csrf },
    body: loginBody,
  });
  if (!login.ok) throw new Error(`sign-in failed: ${login.status} ${await login.text()}`);
  const sessionCookie = (login.headers.getSetCookie()[0] ?? "").split(";")[0] as string;

  const sessionResult = await cannon({ url: `${base}/api/session`, headers: { cookie: sessionCookie } });

  // Sign-ins from many client addresses (behind one load balancer), so the per-address limit measures nothing here.
  let client = 0;
  const signIns = await cannon({
    url: `${base}/api/account/login`,
    method: "POST",
    connections: cores * 4,
    headers: { "content-type": "application/json", cookie: anonCookie, "x-csrf-token": csrf },
    body: loginBody,
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
  server.kill();

  const helloRps = helloResult.requests.average;
  const sessionRps = sessionResult.requests.average;
  const signInRps = signIns.requests.average;
  const ratio = sessionRps / helloRps;
  const fraction = signInRps / hashLimit;
  const row = (label: string, value: string) => console.log(`${label.padEnd(44)} ${value}`);
  console.log(`\nGatehouse benchmark — ${cores} cores, ${DURATION_S} s per run, Node ${process.version}\n`);
  row("Fastify hello-world", `${helloRps.toFixed(0)} req/s`);
  row("GET /api/session (signed in)", `${sessionRps.toFixed(0)} req/s, p99 ${sessionResult.latency.p99} ms`);
  row("session ÷ hello-world", `${ratio.toFixed(2)} (target ≥ 0.50: ${ratio >= 0.5 ? "met" : "NOT met"})`);
  row("argon2id hash (m=19 MiB, t=2, p=1), median", `${hashMs.toFixed(1)} ms`);
  row("hashing limit (cores ÷ hash time)", `${hashLimit.toFixed(1)} sign-ins/s`);
  row("POST /api/account/login", `${signInRps.toFixed(1)} sign-ins/s, p99 ${signIns.latency.p99} ms`);
  row("sign-ins ÷ hashing limit", `${fraction.toFixed(2)} (target ≥ 0.85: ${fraction >= 0.85 ? "met" : "NOT met"})`);
  row(
    "argon2id alone with every core busy",
    `${parallelRate.toFixed(1)} hashes/s (${(parallelRate / hashLimit).toFixed(2)} of the limit)`,
  );
  row("sign-ins ÷ that", (signInRps / parallelRate).toFixed(2));
}

await main();
process.exit(0);
