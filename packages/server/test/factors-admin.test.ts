import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runAdmin } from "../src/admin/cli.ts";
import { type Db, migrate, openDatabase } from "../src/store/db.ts";
import { describeDatabases, freshPostgres, tempDir } from "./harness.ts";

/**
 * Issue #26, the admin command line: `factors:list` shows a person's second factors, `factors:reset` removes them
 * all with the remembered browsers (audited and mailed to the person), keeping the account and its sessions.
 */
describeDatabases([
  ["SQLite", async () => `sqlite:${tempDir()}/factors.db`],
  ["PostgreSQL", freshPostgres],
])("factors:list and factors:reset (%s)", (_name, database) => {
  let env: Record<string, string>;
  let db: Db;
  const run = (...argv: string[]) => runAdmin(argv, env);
  const NOW = Date.now();

  beforeAll(async () => {
    const url = await database();
    env = { DATABASE_URL: url, SESSION_SECRET: "s".repeat(32) };
    db = openDatabase(url).db;
    await migrate(db);
  });
  afterAll(() => db.destroy());

  /** A person with an authenticator app, two passkeys, recovery codes, remembered browsers and a session. */
  async function protectedPerson() {
    const email = `${randomUUID()}@example.com`;
    expect((await run("user:create", "--email", email, "--password", "Granite-Kettle-58")).code).toBe(0);
    const { id } = await db.selectFrom("users").select("id").where("email", "=", email).executeTakeFirstOrThrow();
    await db
      .insertInto("totp_factors")
      .values({ user_id: id, secret_sealed: "sealed", confirmed_at: Date.UTC(2026, 0, 2), created_at: 1 })
      .execute();
    const passkey = (name: string, lastUsed: number | null) => ({
      id: randomUUID(),
      user_id: id,
      rp_id: "localhost",
      public_key: "key",
      device_type: "multiDevice",
      name,
      created_at: Date.UTC(2026, 0, 3),
      last_used_at: lastUsed,
    });
    await db
      .insertInto("passkeys")
      .values([passkey("MacBook", Date.UTC(2026, 1, 4)), passkey("Security key", null)])
      .execute();
    await db
      .insertInto("recovery_codes")
      .values(
        ["a", "b", "c"].map((code, i) => ({
          code_hash: `${id}-${code}`,
          user_id: id,
          created_at: 1,
          used_at: i === 0 ? 2 : null,
        })),
      )
      .execute();
    await db
      .insertInto("remembered_browsers")
      .values([
        { device_id: "d1", user_id: id, expires_at: NOW + 60_000_000 },
        // Expired: no longer skips anything.
        { device_id: "d2", user_id: id, expires_at: NOW - 1 },
      ])
      .execute();
    await db
      .insertInto("sessions")
      .values({
        id: `s-${id}`,
        user_id: id,
        created_at: NOW,
        last_seen_at: NOW,
        expires_at: NOW + 60_000,
        ip: "127.0.0.1",
        user_agent: "test",
        auth_time: NOW,
        auth_method: "password",
        idp: null,
        pending_step: null,
        amr: "pwd otp mfa",
        fresh_at: NOW,
      })
      .execute();
    return { email, id };
  }

  it("lists the authenticator app, passkeys with names and last use, codes left and remembered browsers", async () => {
    const { email } = await protectedPerson();
    const listed = await run("factors:list", "--email", email);
    expect(listed.code).toBe(0);
    expect(listed.out.split("\n")).toEqual([
      "authenticator app: on since 2026-01-02T00:00:00.000Z",
      "passkeys: 2",
      expect.stringMatching(
        /^ {2}"MacBook" {2}added 2026-01-03T00:00:00\.000Z {2}last used 2026-02-04T00:00:00\.000Z$/u,
      ),
      expect.stringMatching(/^ {2}"Security key" {2}added .* {2}last used never$/u),
      "recovery codes left: 2",
      "remembered browsers: 1",
      "",
    ]);
    // Reading is not an admin action of the trail.
    expect(await db.selectFrom("audit").select("event").where("detail", "=", "factors:list").execute()).toEqual([]);
  });

  it("resets every factor and remembered browser, audited, keeping the account and its sessions", async () => {
    const { email, id } = await protectedPerson();
    const reset = await run("factors:reset", "--email", email);
    expect(reset.code).toBe(0);
    expect(reset.out).toContain("authenticator app 1, passkeys 2,");
    expect(reset.out).toContain("recovery codes 2, remembered browsers 1");
    expect((await run("factors:list", "--email", email)).out).toBe(
      "authenticator app: off\npasskeys: 0\nrecovery codes left: 0\nremembered browsers: 0\n",
    );
    for (const table of ["totp_factors", "passkeys", "recovery_codes", "remembered_browsers"] as const) {
      expect(await db.selectFrom(table).select("user_id").where("user_id", "=", id).execute(), table).toEqual([]);
    }
    expect(await db.selectFrom("sessions").select("id").where("user_id", "=", id).execute()).toHaveLength(1);
    // The person is told (a1's mail kind), with a link to Edit account.
    const mails = await db.selectFrom("outbox").select(["kind", "text_body"]).where("recipient", "=", email).execute();
    expect(mails.map((m) => m.kind)).toEqual(["second_factors_reset"]);
    expect(mails[0]?.text_body).toContain("/profile/edit");
    const events = await db.selectFrom("audit").select(["event", "detail"]).where("user_id", "=", id).execute();
    expect(events).toEqual(
      expect.arrayContaining([
        { event: "second_factors_reset", detail: "totp 1, passkeys 2, recovery codes 2, browsers 1" },
        { event: "admin", detail: "factors:reset" },
      ]),
    );
  });

  it("user:delete takes every factor row with the account (the tables have no foreign key)", async () => {
    const { email, id } = await protectedPerson();
    expect((await run("user:delete", "--email", email)).code).toBe(0);
    for (const table of ["totp_factors", "passkeys", "recovery_codes", "remembered_browsers"] as const) {
      expect(await db.selectFrom(table).select("user_id").where("user_id", "=", id).execute(), table).toEqual([]);
    }
  });

  it("names an unknown address and a missing flag", async () => {
    expect(await run("factors:reset", "--email", "nobody@example.com")).toEqual({
      code: 1,
      out: "no account with the address nobody@example.com\n",
    });
    expect((await run("factors:list")).code).toBe(1);
  });
});
