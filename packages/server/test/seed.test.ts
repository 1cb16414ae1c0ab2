/**
 * `npm run seed` (issue #28): a small population on SQLite and on PostgreSQL holds the rows it promises, in every
 * state and language, and its accounts are ones the real app serves: a seeded account signs in with its password.
 */
import { BRAND_IDS, LANGUAGE_CODES } from "@gatehouse/contract";
import { sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  plainSignInFrom,
  SEED_SESSION_SECRET,
  seededEmail,
  seededPassword,
  seededStatus,
} from "../../../scripts/seed/rows.ts";
import { seedDatabase } from "../../../scripts/seed.ts";
import {
  Client,
  describeDatabases,
  expectErrorObject,
  freshPostgres,
  startServer,
  type TestServer,
  tempDir,
} from "./harness.ts";

const ACCOUNTS = 200;

describeDatabases([
  ["SQLite", async () => `sqlite:${tempDir()}/seed.db`],
  ["PostgreSQL", freshPostgres],
])("npm run seed on %s", (_name, database) => {
  let server: TestServer;
  let rows: Record<string, number>;
  let ip = 0;
  const client = () => new Client(server.url, { "x-forwarded-for": `192.0.2.${(++ip % 250) + 1}` }).start();
  const count = async (table: string, where = sql`1 = 1`) => {
    const { rows } = await sql<{
      n: number | string;
    }>`select count(*) as n from ${sql.table(table)} where ${where}`.execute(server.app.db);
    return Number(rows[0]?.n);
  };

  beforeAll(async () => {
    const databaseUrl = await database();
    rows = (await seedDatabase(databaseUrl, ACCOUNTS)).rows;
    // The seed seals authenticator secrets under the bench's SESSION_SECRET: the app must run with it.
    server = await startServer({ databaseUrl, env: { SESSION_SECRET: SEED_SESSION_SECRET, TRUST_PROXY: "true" } });
  });
  afterAll(() => server?.close());

  it("writes the promised rows: 2 sessions and 10 events per account, grants with tokens, identities, factors", async () => {
    expect(rows.users).toBe(ACCOUNTS);
    expect(await count("users")).toBe(ACCOUNTS);
    expect(await count("sessions")).toBe(2 * ACCOUNTS);
    expect(await count("audit")).toBe(10 * ACCOUNTS);
    const grants = await count("oidc_models", sql`model = 'Grant'`);
    expect(grants).toBeGreaterThan(0);
    expect(await count("oidc_models", sql`model = 'RefreshToken'`)).toBe(grants);
    expect(await count("external_identities")).toBeGreaterThan(0);
    expect(await count("totp_factors")).toBeGreaterThan(0);
    expect(await count("recovery_codes")).toBe(10 * (await count("totp_factors")));
    // Sessions belong to active accounts only; some have expired already (work for the sweeper).
    expect(await count("sessions", sql`user_id in (select id from users where status <> 'active')`)).toBe(0);
    expect(await count("sessions", sql`expires_at < ${Date.now()}`)).toBeGreaterThan(0);
    for (const [table, n] of Object.entries(rows)) expect(await count(table), table).toBe(n);
  });

  it("has accounts in every state, language and brand", async () => {
    for (const status of ["pending", "active", "disabled"])
      expect(await count("users", sql`status = ${status}`), status).toBeGreaterThan(0);
    for (const language of LANGUAGE_CODES)
      expect(await count("users", sql`language = ${language}`), language).toBeGreaterThan(0);
    for (const brand of BRAND_IDS) expect(await count("users", sql`brand = ${brand}`), brand).toBeGreaterThan(0);
  });

  it("signs a seeded account in with its password through the real app, and serves its session and profile", async () => {
    const i = plainSignInFrom(ACCOUNTS / 2);
    const c = await client();
    expect((await c.login(seededEmail(i), seededPassword(i))).status).toBe(200);
    const session = await c.get("/api/session");
    expect(session.status).toBe(200);
    expect(session.json.Email).toBe(seededEmail(i));
    const profile = await c.get("/api/account/profile");
    expect(profile.status).toBe(200);
    expect(profile.json.email).toBe(seededEmail(i));
    expectErrorObject(
      await (await client()).login(seededEmail(i), `${seededPassword(i)}x`),
      401,
      "invalid_authentication",
    );
  });

  it("keeps the states' meaning: a pending account is not active, a disabled one is disabled, a factor is owed", async () => {
    const pending = Array.from({ length: ACCOUNTS }, (_, i) => i).find((i) => seededStatus(i) === "pending") as number;
    const disabled = Array.from({ length: ACCOUNTS }, (_, i) => i).find(
      (i) => seededStatus(i) === "disabled",
    ) as number;
    expectErrorObject(
      await (await client()).login(seededEmail(pending), seededPassword(pending)),
      403,
      "user_not_active",
    );
    expectErrorObject(
      await (await client()).login(seededEmail(disabled), seededPassword(disabled)),
      403,
      "user_disabled",
    );
    // Account 5 has an authenticator app (scripts/seed/rows.ts): its password alone owes the second factor.
    const c = await client();
    const login = await c.login(seededEmail(5), seededPassword(5));
    expect(login.status).toBe(200);
    expect(login.json.next.url).toMatch(/^\/login\/second-factor/u);
    expect((await c.get("/api/session")).status).toBe(204);
  });
});
