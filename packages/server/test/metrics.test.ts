import { type AddressInfo, createServer, type Socket } from "node:net";
import { Writable } from "node:stream";
import { LOCKOUT_THRESHOLD, OIDC_API_RESOURCE, RATE_LIMITS, RECOVERY_MAILS_PER_ADDRESS } from "@gatehouse/contract";
import * as oidc from "openid-client";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { loadConfig } from "../src/config.ts";
import { createMetrics } from "../src/metrics/registry.ts";
import { openDatabase } from "../src/store/db.ts";
import {
  Client,
  describeDatabases,
  expectErrorObject,
  freshPostgres,
  registrationBody,
  startServer,
  type TestServer,
} from "./harness.ts";
import {
  Browser,
  codeRequest,
  createPerson,
  discover,
  type OidcServer,
  PASSWORD,
  startOidcServer,
} from "./oidc-harness.ts";
import { freePort } from "./ports.ts";
import { solveBotCheck } from "./pow.ts";

/** Issue #14: Prometheus metrics at /metrics, never public (docs/deployment.md "Metrics"). */

const TOKEN = "metrics-token-0123456789-abcdefghijklmnopqrstuvwxyz";
const NATIVE_CALLBACK = "http://127.0.0.1:43210/callback";

/** The samples of an exposition text, keyed by name and labels in label order (`name{a="1",b="2"}`). */
function samples(text: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const line of text.split("\n")) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/u.exec(line);
    if (!match) continue;
    const labels = [...(match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/gu)].map(([, k, v]) => [k, v] as const);
    found.set(key(match[1] as string, Object.fromEntries(labels)), Number(match[3]));
  }
  return found;
}

function key(name: string, labels: Record<string, string> = {}): string {
  const inOrder = Object.entries(labels).sort(([a], [b]) => a.localeCompare(b));
  return `${name}{${inOrder.map(([k, v]) => `${k}="${v}"`).join(",")}}`;
}

/** One scrape, read: the value of a sample (0 when the series is absent), and the whole text. */
interface Scrape {
  text: string;
  value(name: string, labels?: Record<string, string>): number;
  has(name: string, labels?: Record<string, string>): boolean;
}

async function scrape(
  url: string,
  headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` },
): Promise<Scrape> {
  const response = await fetch(`${url}/metrics`, { headers });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`scrape answered ${response.status}: ${text}`);
  const found = samples(text);
  return {
    text,
    value: (name, labels) => found.get(key(name, labels)) ?? 0,
    has: (name, labels) => found.has(key(name, labels)),
  };
}

/** Scrapes until `done` holds (the mail worker runs on its own time), or fails after a while. */
async function scrapeUntil(url: string, done: (scrape: Scrape) => boolean, headers?: Record<string, string>) {
  const until = Date.now() + 15_000;
  for (;;) {
    const current = await scrape(url, headers);
    if (done(current)) return current;
    if (Date.now() > until) throw new Error(`condition never held; last scrape:\n${current.text}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

let ip = 0;
/** Each caller its own client address (TRUST_PROXY), so the per-address limits bite only where they are tested. */
const fresh = (url: string) => new Client(url, { "x-forwarded-for": `198.51.100.${++ip % 250}` });

/** A new visitor's registration at `url`, bot check solved: it owes one activation mail. */
async function register(url: string) {
  const caller = await fresh(url).start();
  return caller.post(
    "/api/account/register",
    registrationBody(`${crypto.randomUUID()}@example.com`, { botCheck: await solveBotCheck(caller) }),
  );
}

describeDatabases([["SQLite"]])("/metrics on the main port, behind METRICS_TOKEN (%s)", () => {
  let server: OidcServer;
  let app: oidc.Configuration;
  const lines: string[] = [];

  beforeAll(async () => {
    const logStream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    server = await startOidcServer(
      [
        {
          client_id: "desk",
          application_type: "native",
          redirect_uris: ["http://127.0.0.1/callback"],
          first_party: true,
        },
      ],
      { env: { METRICS_TOKEN: TOKEN, TRUST_PROXY: "true", LOG_LEVEL: "info" }, logStream },
    );
    app = await discover(server, "desk");
  });
  afterAll(() => server.close());

  it("refuses a scrape without the token, or with another, with the spec's error object and a Bearer challenge", async () => {
    const attempts: (Record<string, string> | undefined)[] = [
      undefined,
      { authorization: "Bearer not-the-token-0123456789-abcdefghijklmnopqrstu" },
      { authorization: `Bearer ${TOKEN}x` },
      { authorization: `Bearer ${TOKEN.slice(0, -1)}` },
      { authorization: `Basic ${Buffer.from(`prometheus:${TOKEN}`).toString("base64")}` },
      { authorization: TOKEN },
      { authorization: "Bearer" },
    ];
    for (const headers of attempts) {
      const response = await fetch(`${server.url}/metrics`, { headers });
      const text = await response.text();
      expectErrorObject(
        { status: response.status, headers: response.headers, text, json: JSON.parse(text) },
        401,
        "not_authenticated",
      );
      expect(response.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
      expect(text).not.toContain("gatehouse_");
    }
  });

  it("answers the token's bearer with the text exposition format: every metric, the defaults, no pool on SQLite", async () => {
    const response = await fetch(`${server.url}/metrics`, { headers: { authorization: `bearer  ${TOKEN}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/u);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const text = await response.text();
    for (const [name, type] of [
      ["gatehouse_http_requests_total", "counter"],
      ["gatehouse_http_request_duration_seconds", "histogram"],
      ["gatehouse_sign_ins_total", "counter"],
      ["gatehouse_blocks_total", "counter"],
      ["gatehouse_mail_queued_total", "counter"],
      ["gatehouse_mail_sent_total", "counter"],
      ["gatehouse_mail_failed_total", "counter"],
      ["gatehouse_mail_waiting", "gauge"],
      ["gatehouse_mail_oldest_waiting_seconds", "gauge"],
      ["gatehouse_tokens_issued_total", "counter"],
      ["gatehouse_database_up", "gauge"],
      ["nodejs_eventloop_lag_seconds", "gauge"],
      ["process_resident_memory_bytes", "gauge"],
      ["nodejs_heap_size_used_bytes", "gauge"],
    ]) {
      expect(text).toContain(`# TYPE ${name} ${type}\n`);
    }
    const now = samples(text);
    expect(now.get(key("gatehouse_database_up"))).toBe(1);
    expect(text).not.toContain("gatehouse_db_pool_connections");
    // Every sign-in method and outcome, every block and token type is there from the start, at zero or more.
    expect(now.has(key("gatehouse_sign_ins_total", { method: "corporate", outcome: "blocked" }))).toBe(true);
    expect(now.has(key("gatehouse_blocks_total", { kind: "recovery_quota" }))).toBe(true);
    expect(now.has(key("gatehouse_tokens_issued_total", { type: "licence" }))).toBe(true);
  });

  it("counts requests by route pattern and status, and those no route matched as unmatched, never by their URL", async () => {
    const before = await scrape(server.url);
    expect((await fetch(`${server.url}/api/session`)).status).toBe(204);
    expect((await fetch(`${server.url}/no/such/page-4711`)).status).toBe(404);
    expect((await fetch(`${server.url}/api/no-such-call-4711`)).status).toBe(404);
    expect((await fetch(`${server.url}/api/account/recover/some-code-4711`)).status).toBe(200);
    const after = await scrape(server.url);
    const session = { method: "GET", route: "/api/session" };
    expect(after.value("gatehouse_http_requests_total", { ...session, status: "204" })).toBe(
      before.value("gatehouse_http_requests_total", { ...session, status: "204" }) + 1,
    );
    expect(after.value("gatehouse_http_request_duration_seconds_count", session)).toBe(
      before.value("gatehouse_http_request_duration_seconds_count", session) + 1,
    );
    expect(after.value("gatehouse_http_request_duration_seconds_bucket", { ...session, le: "+Inf" })).toBe(
      before.value("gatehouse_http_request_duration_seconds_bucket", { ...session, le: "+Inf" }) + 1,
    );
    const unmatched = { method: "GET", route: "unmatched", status: "404" };
    expect(after.value("gatehouse_http_requests_total", unmatched)).toBe(
      before.value("gatehouse_http_requests_total", unmatched) + 2,
    );
    // A route's requests count under its pattern: the code in the path never becomes a label.
    const code = { method: "GET", route: "/api/account/recover/:code", status: "200" };
    expect(after.value("gatehouse_http_requests_total", code)).toBe(
      before.value("gatehouse_http_requests_total", code) + 1,
    );
    // No label holds the path (a process metric's value may hold the digits by chance).
    expect(after.text).not.toMatch(/\{[^}]*4711[^}]*\}/u);
    // The scrapes themselves are requests of the /metrics route.
    expect(after.value("gatehouse_http_requests_total", { method: "GET", route: "/metrics", status: "200" })).toBe(
      before.value("gatehouse_http_requests_total", { method: "GET", route: "/metrics", status: "200" }) + 1,
    );
  });

  it("counts a failed and a successful password sign-in once each", async () => {
    const person = await createPerson(server.app);
    const failure = { method: "password", outcome: "failure" };
    const success = { method: "password", outcome: "success" };
    const before = await scrape(server.url);
    const browser = await fresh(server.url).start();
    expectErrorObject(await browser.login(person.email, "not the password"), 401, "invalid_authentication");
    const failed = await scrape(server.url);
    expect(failed.value("gatehouse_sign_ins_total", failure)).toBe(
      before.value("gatehouse_sign_ins_total", failure) + 1,
    );
    expect(failed.value("gatehouse_sign_ins_total", success)).toBe(before.value("gatehouse_sign_ins_total", success));
    expect((await browser.login(person.email, PASSWORD)).status).toBe(200);
    const after = await scrape(server.url);
    expect(after.value("gatehouse_sign_ins_total", failure)).toBe(
      before.value("gatehouse_sign_ins_total", failure) + 1,
    );
    expect(after.value("gatehouse_sign_ins_total", success)).toBe(
      before.value("gatehouse_sign_ins_total", success) + 1,
    );
  });

  it("counts a lockout once, and each attempt refused during it as blocked", async () => {
    const person = await createPerson(server.app);
    const before = await scrape(server.url);
    for (let i = 0; i < LOCKOUT_THRESHOLD; i++)
      await (await fresh(server.url).start()).login(person.email, `wrong ${i}`);
    const refused = await (await fresh(server.url).start()).login(person.email, PASSWORD);
    expectErrorObject(refused, 429, "user_temporarily_blocked");
    const after = await scrape(server.url);
    const delta = (name: string, labels: Record<string, string>) =>
      after.value(name, labels) - before.value(name, labels);
    expect(delta("gatehouse_blocks_total", { kind: "lockout" })).toBe(1);
    expect(delta("gatehouse_blocks_total", { kind: "blocked_attempt" })).toBe(1);
    // The attempt that started the block and the one refused during it; the others were wrong passwords.
    expect(delta("gatehouse_sign_ins_total", { method: "password", outcome: "blocked" })).toBe(2);
    expect(delta("gatehouse_sign_ins_total", { method: "password", outcome: "failure" })).toBe(LOCKOUT_THRESHOLD - 1);
  });

  it("counts rate-limit refusals and recovery mails held back by the address's quota", async () => {
    const before = await scrape(server.url);
    const caller = await fresh(server.url).start();
    const { max } = RATE_LIMITS.resendActivation;
    for (let i = 0; i <= max; i++) {
      const answer = await caller.post("/api/account/resend_activation", { email: "nobody@example.com" });
      if (i === max) expectErrorObject(answer, 429, "rate_limited");
    }
    const person = await createPerson(server.app);
    for (let i = 0; i <= RECOVERY_MAILS_PER_ADDRESS.max; i++) {
      expect(
        (await (await fresh(server.url).start()).post("/api/account/recover", { email: person.email })).status,
      ).toBe(200);
    }
    const after = await scrape(server.url);
    const delta = (name: string, labels: Record<string, string>) =>
      after.value(name, labels) - before.value(name, labels);
    expect(delta("gatehouse_blocks_total", { kind: "rate_limit" })).toBe(1);
    expect(delta("gatehouse_blocks_total", { kind: "recovery_quota" })).toBe(1);
    expect(delta("gatehouse_mail_queued_total", { kind: "password_reset" })).toBe(RECOVERY_MAILS_PER_ADDRESS.max);
  });

  it("counts a registration's activation mail, queued in its transaction, and its delivery", async () => {
    const before = await scrape(server.url);
    expect((await register(server.url)).status).toBe(200);
    const queued = { kind: "activation" };
    const after = await scrapeUntil(
      server.url,
      (now) => now.value("gatehouse_mail_sent_total") > before.value("gatehouse_mail_sent_total"),
    );
    expect(after.value("gatehouse_mail_queued_total", queued)).toBe(
      before.value("gatehouse_mail_queued_total", queued) + 1,
    );
    expect(after.value("gatehouse_mail_failed_total")).toBe(before.value("gatehouse_mail_failed_total"));
  });

  it("counts the tokens issued: the provider's access, ID and refresh tokens, and the licence token we mint", async () => {
    const person = await createPerson(server.app);
    const browser = new Browser(server);
    await browser.signIn(person.email);
    const before = await scrape(server.url);
    const request = await codeRequest(app, NATIVE_CALLBACK, { scope: "openid api" });
    const tokens = await oidc.authorizationCodeGrant(app, await browser.authorize(request.url), request.checks, {
      resource: OIDC_API_RESOURCE,
    });
    expect(tokens.refresh_token).toBeTruthy();
    const granted = await scrape(server.url);
    const delta = (now: Scrape, type: string) =>
      now.value("gatehouse_tokens_issued_total", { type }) - before.value("gatehouse_tokens_issued_total", { type });
    expect(["access", "id", "refresh", "licence"].map((type) => delta(granted, type))).toEqual([1, 1, 1, 0]);

    await oidc.refreshTokenGrant(app, tokens.refresh_token as string, { resource: OIDC_API_RESOURCE });
    const refreshed = await scrape(server.url);
    // A desktop app's refresh token rotates: a new one with each grant, and an ID token again (scope openid).
    expect(["access", "id", "refresh", "licence"].map((type) => delta(refreshed, type))).toEqual([2, 2, 2, 0]);

    const complete = await browser.get("/api/studio/complete");
    expect(new URL(String(complete.headers.get("location")), server.url).searchParams.get("access_token")).toBeTruthy();
    const minted = await scrape(server.url);
    expect(["access", "id", "refresh", "licence"].map((type) => delta(minted, type))).toEqual([2, 2, 2, 1]);
  });

  it("keeps the token out of the log, whoever presents it and whatever they present", async () => {
    await fetch(`${server.url}/metrics`, {
      headers: { authorization: "Bearer presented-by-a-stranger-0123456789abcdef" },
    });
    await scrape(server.url);
    await vi.waitFor(() => expect(lines.join("")).toContain('"url":"/metrics"'), { timeout: 5000 });
    const logged = lines.join("");
    expect(logged).not.toContain(TOKEN);
    expect(logged).not.toContain("presented-by-a-stranger");
  });
});

describeDatabases([["PostgreSQL"]])("/metrics on METRICS_PORT alone (%s)", () => {
  let server: TestServer;
  let metricsUrl: string;

  beforeAll(async () => {
    const port = await freePort();
    metricsUrl = `http://127.0.0.1:${port}`;
    server = await startServer({
      databaseUrl: await freshPostgres(),
      // A mail server that is not there: the activation mail waits, and its attempts fail.
      env: {
        METRICS_PORT: String(port),
        METRICS_HOST: "127.0.0.1",
        SMTP_URL: "smtp://127.0.0.1:1",
        TRUST_PROXY: "true",
      },
    });
  });
  afterAll(() => server?.close());

  it("serves the metrics there without a token, and nothing else", async () => {
    const current = await scrape(metricsUrl, {});
    expect(current.text).toContain("# TYPE gatehouse_http_requests_total counter\n");
    for (const [method, path] of [
      ["GET", "/"],
      ["GET", "/api/session"],
      ["GET", "/metrics/x"],
      ["POST", "/metrics"],
    ] as const) {
      const response = await fetch(`${metricsUrl}${path}`, { method });
      const text = await response.text();
      expectErrorObject(
        { status: response.status, headers: response.headers, text, json: JSON.parse(text) },
        404,
        "not_found",
      );
    }
    // A malformed request gets the error object too, as on the main port.
    const garbled = await fetch(`${metricsUrl}/metrics%`);
    const text = await garbled.text();
    expectErrorObject(
      { status: garbled.status, headers: garbled.headers, text, json: JSON.parse(text) },
      400,
      "invalid_request",
    );
  });

  it("leaves /metrics on the main port what any unknown path is there", async () => {
    const metrics = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const unknown = await fetch(`${server.url}/no-such-page`);
    expect(metrics.status).toBe(404);
    expect(metrics.headers.get("content-type")).toBe(unknown.headers.get("content-type"));
    expect(await metrics.text()).not.toContain("gatehouse_");
  });

  it("shows PostgreSQL's pool, the database up, and a mail waiting while its delivery fails", async () => {
    const before = await scrape(metricsUrl, {});
    expect(before.value("gatehouse_database_up")).toBe(1);
    for (const state of ["total", "idle", "waiting"]) {
      expect(before.has("gatehouse_db_pool_connections", { state })).toBe(true);
    }
    expect(before.value("gatehouse_db_pool_connections", { state: "total" })).toBeGreaterThanOrEqual(1);
    expect(before.value("gatehouse_db_pool_connections", { state: "total" })).toBeLessThanOrEqual(10);

    expect((await register(server.url)).status).toBe(200);
    const failed = await scrapeUntil(
      metricsUrl,
      (now) => now.value("gatehouse_mail_failed_total") > before.value("gatehouse_mail_failed_total"),
      {},
    );
    expect(failed.value("gatehouse_mail_queued_total", { kind: "activation" })).toBe(
      before.value("gatehouse_mail_queued_total", { kind: "activation" }) + 1,
    );
    expect(failed.value("gatehouse_mail_sent_total")).toBe(0);
    expect(failed.value("gatehouse_mail_waiting")).toBe(before.value("gatehouse_mail_waiting") + 1);
    // The oldest waiting mail ages while it waits.
    const later = await scrapeUntil(
      metricsUrl,
      (now) =>
        now.value("gatehouse_mail_oldest_waiting_seconds") > failed.value("gatehouse_mail_oldest_waiting_seconds"),
      {},
    );
    expect(later.value("gatehouse_mail_oldest_waiting_seconds")).toBeGreaterThan(0);
  });
});

describeDatabases([["SQLite"]])("scrapes while the database does not answer", () => {
  it("say so within the timeout (up 0, mail NaN), and ask it nothing more while its questions are out", async () => {
    // A PostgreSQL that takes connections and never says a word: every question hangs.
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { db, pool } = openDatabase(
      `postgres://gatehouse:x@127.0.0.1:${(silent.address() as AddressInfo).port}/gatehouse`,
    );
    const metrics = createMetrics({ db, pool });
    try {
      const started = performance.now();
      const scrapes: string[] = await Promise.all([metrics.registry.metrics(), metrics.registry.metrics()]);
      expect(performance.now() - started).toBeLessThan(4000);
      scrapes.push(await metrics.registry.metrics());
      for (const text of scrapes) {
        const found = samples(text);
        expect(found.get(key("gatehouse_database_up"))).toBe(0);
        expect(found.get(key("gatehouse_mail_waiting"))).toBeNaN();
        expect(found.get(key("gatehouse_mail_oldest_waiting_seconds"))).toBeNaN();
      }
      // One ping and one outbox question, shared by the three scrapes: no connection per scrape.
      expect(sockets).toHaveLength(2);
      const last = samples(scrapes.at(-1) as string);
      expect(last.get(key("gatehouse_db_pool_connections", { state: "total" }))).toBe(2);
      expect(last.get(key("gatehouse_db_pool_connections", { state: "idle" }))).toBe(0);
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
      await db.destroy().catch(() => undefined);
    }
  });
});

describeDatabases([["SQLite"]])("without METRICS_TOKEN or METRICS_PORT", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it("answers /metrics as any unknown path, token or not", async () => {
    const unknown = await fetch(`${server.url}/no-such-page`);
    const unknownText = await unknown.text();
    for (const headers of [{}, { authorization: `Bearer ${TOKEN}` }]) {
      const metrics = await fetch(`${server.url}/metrics`, { headers });
      expect(metrics.status).toBe(404);
      expect(metrics.headers.get("content-type")).toBe(unknown.headers.get("content-type"));
      expect(await metrics.text()).toBe(unknownText);
    }
    expect(server.config.metrics).toBeUndefined();
  });
});

describeDatabases([["SQLite"]])("METRICS_TOKEN, METRICS_PORT and METRICS_HOST are validated at start", () => {
  const load = (env: Record<string, string>) => () =>
    loadConfig({ NODE_ENV: "test", SESSION_SECRET: "test-secret-that-is-long-enough-123456", ...env });

  it("refuses a short token, one no scraper can send as it is, and a bad or clashing port", () => {
    expect(load({ METRICS_TOKEN: "a".repeat(31) })).toThrow(/METRICS_TOKEN: must be at least 32 characters/u);
    expect(load({ METRICS_TOKEN: `${"a".repeat(32)} b` })).toThrow(/METRICS_TOKEN: must be letters/u);
    expect(load({ METRICS_TOKEN: `${"a".repeat(32)}\n` })).toThrow(/METRICS_TOKEN/u);
    expect(load({ METRICS_PORT: "0" })).toThrow(/METRICS_PORT/u);
    expect(load({ METRICS_PORT: "65536" })).toThrow(/METRICS_PORT/u);
    expect(load({ METRICS_PORT: "nine" })).toThrow(/METRICS_PORT/u);
    expect(load({ METRICS_PORT: "8080", PORT: "8080" })).toThrow(/METRICS_PORT: must differ from PORT/u);
    expect(load({ METRICS_HOST: "127.0.0.1" })).toThrow(/METRICS_HOST: set METRICS_PORT too/u);
  });

  it("takes a token, a port on HOST or METRICS_HOST, or both", () => {
    expect(load({ METRICS_TOKEN: TOKEN })().metrics).toEqual({ token: TOKEN, port: undefined, host: "0.0.0.0" });
    expect(load({ METRICS_PORT: "9464", HOST: "10.0.0.5" })().metrics).toEqual({
      token: undefined,
      port: 9464,
      host: "10.0.0.5",
    });
    expect(load({ METRICS_PORT: "9464", METRICS_HOST: "127.0.0.1", METRICS_TOKEN: TOKEN })().metrics).toEqual({
      token: TOKEN,
      port: 9464,
      host: "127.0.0.1",
    });
  });

  it("refuses to start when METRICS_PORT is taken, with a message rather than a stack", async () => {
    const loopback = { METRICS_HOST: "127.0.0.1" };
    const taken = await startServer({ env: { ...loopback, METRICS_PORT: String(await freePort()) } });
    try {
      const port = String(taken.config.metrics?.port);
      await expect(startServer({ env: { ...loopback, METRICS_PORT: port } })).rejects.toThrow(
        new RegExp(`METRICS_PORT: cannot listen on 127\\.0\\.0\\.1:${port} \\(EADDRINUSE\\)`, "u"),
      );
    } finally {
      await taken.close();
    }
  });
});
