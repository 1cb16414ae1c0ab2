import { randomUUID } from "node:crypto";
import { STEP_UP_MS } from "@gatehouse/contract";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createUser } from "../src/accounts/users.ts";
import { newTotpSecret, sealSecret, totpCode } from "../src/factors/totp.ts";
import type { Db } from "../src/store/db.ts";
import {
  Client,
  describeDatabases,
  expectErrorObject,
  freshPostgres,
  startServer,
  type TestServer,
} from "./harness.ts";

/**
 * Issue #26 step-up on the account's existing sensitive calls: changing the password, asking for the account's
 * deletion, removing a linked identity. Each needs a proof within STEP_UP_MS in the session, with a second factor
 * where the account has one; an attempt that owes the password change has just given its proof and needs none.
 */
const PASSWORD = "Granite-Kettle-58";
const NEW_PASSWORD = "Copper-Lantern-91!";

/** The sensitive calls, each made ready to succeed for an account that has a password and a Google identity. */
const CALLS = {
  changePassword: (c: Client) =>
    c.post("/api/account/change_password", { oldPassword: PASSWORD, password: NEW_PASSWORD }),
  deleteRequest: (c: Client) => c.post("/api/account/delete/request", { password: PASSWORD }),
  unlinkIdentity: (c: Client) => c.request("DELETE", "/api/account/identities/google"),
} as const;

describeDatabases([
  ["SQLite", async () => undefined],
  ["PostgreSQL", freshPostgres],
])("step-up on the sensitive account calls (%s)", (_name, database) => {
  let server: TestServer;
  let ip = 0;
  const db = (): Db => server.app.db;
  const client = () => new Client(server.url, { "x-forwarded-for": `198.51.100.${++ip}` }).start();

  beforeAll(async () => {
    const databaseUrl = await database();
    server = await startServer({ env: { TRUST_PROXY: "true", ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) } });
  });
  afterAll(() => server.close());

  /** A signed-in person with a password and a linked Google identity, and their session's row id. */
  async function signedIn(overrides: { requirePasswordUpdate?: boolean } = {}) {
    const user = await createUser(db(), {
      email: `${randomUUID()}@example.com`,
      password: PASSWORD,
      firstName: "Ann",
      lastName: "Lee",
      countryCode: "DE",
      ...overrides,
    });
    await db()
      .insertInto("external_identities")
      .values({ provider: "google", subject: randomUUID(), user_id: user.id, email: user.email, linked_at: 1 })
      .execute();
    const c = await client();
    expect((await c.login(user.email, PASSWORD)).status).toBe(200);
    const session = await db().selectFrom("sessions").selectAll().where("user_id", "=", user.id).executeTakeFirst();
    if (!session) throw new Error("no session opened");
    return { c, user, sessionId: session.id };
  }

  /** The session's last proof, `ago` ms before now, with these RFC 8176 values. */
  const setProof = (sessionId: string, ago: number, amr = "pwd") =>
    db()
      .updateTable("sessions")
      .set({ fresh_at: Date.now() - ago, amr })
      .where("id", "=", sessionId)
      .execute();

  /** A confirmed authenticator app, as its confirmation leaves it (a1's sealed secret); answers the secret. */
  async function confirmTotp(userId: string) {
    const secret = newTotpSecret();
    await db()
      .insertInto("totp_factors")
      .values({
        user_id: userId,
        secret_sealed: sealSecret(server.config.sessionSecret, userId, secret),
        confirmed_at: Date.now(),
        created_at: Date.now(),
      })
      .execute();
    return secret;
  }

  /** A fresh proof given in the session: POST /account/reauthenticate, with the app's code when there is one. */
  async function stepUp(c: Client, secret?: string) {
    const body = secret
      ? { password: PASSWORD, method: "totp", code: totpCode(secret, Date.now()) }
      : { password: PASSWORD };
    const answer = await c.post("/api/account/reauthenticate", body);
    expect(answer.status, answer.text).toBe(200);
  }

  for (const [name, call] of Object.entries(CALLS)) {
    it(`${name}: refused once the last proof is older than STEP_UP_MS, allowed after a fresh one`, async () => {
      const { c, sessionId } = await signedIn();
      await setProof(sessionId, STEP_UP_MS + 1_000);
      expectErrorObject(await call(c), 403, "reauthentication_required");
      // A session opened before issue #26 never proved anything recently.
      await db().updateTable("sessions").set({ fresh_at: null }).where("id", "=", sessionId).execute();
      expectErrorObject(await call(c), 403, "reauthentication_required");

      await stepUp(c);
      expect((await call(c)).status).toBe(200);
    });

    it(`${name}: an account with an authenticator app needs mfa in the session's proof`, async () => {
      const { c, user, sessionId } = await signedIn();
      const secret = await confirmTotp(user.id);
      // Fresh, but with the password alone (a remembered browser skipped the code).
      await setProof(sessionId, 0, "pwd");
      expectErrorObject(await call(c), 403, "reauthentication_required");
      // The password alone does not step up an account with a factor: the app's code is asked too.
      expect((await c.post("/api/account/reauthenticate", { password: PASSWORD })).status).toBe(400);
      expectErrorObject(await call(c), 403, "reauthentication_required");
      await stepUp(c, secret);
      expect((await call(c)).status).toBe(200);
    });
  }

  it("a session opened by a sign-in is fresh: the calls work at once", async () => {
    const { c } = await signedIn();
    expect((await CALLS.unlinkIdentity(c)).status).toBe(200);
  });

  it("the password change an attempt owes needs no step-up", async () => {
    const user = await createUser(db(), {
      email: `${randomUUID()}@example.com`,
      password: PASSWORD,
      firstName: "Ann",
      lastName: "Lee",
      countryCode: "DE",
      requirePasswordUpdate: true,
    });
    const c = await client();
    const login = await c.login(user.email, PASSWORD);
    expect(login.json.RequiredPasswordUpdate).toBe(true);
    const changed = await CALLS.changePassword(c);
    expect(changed.status).toBe(200);
    expect(changed.json.next).toBeDefined();
    expect((await c.get("/api/session")).status).toBe(200);
  });

  it("a stale session of the same person signing in again owing the change: the attempt changes it", async () => {
    const { c, user, sessionId } = await signedIn();
    await setProof(sessionId, STEP_UP_MS + 1_000);
    await db().updateTable("users").set({ required_password_update: 1 }).where("id", "=", user.id).execute();
    expect((await c.login(user.email, PASSWORD)).json.RequiredPasswordUpdate).toBe(true);
    const changed = await CALLS.changePassword(c);
    expect(changed.status).toBe(200);
    // The attempt finished: a new session replaced the stale one.
    const sessions = await db().selectFrom("sessions").select("id").where("user_id", "=", user.id).execute();
    expect(sessions.map((s) => s.id)).not.toContain(sessionId);
    expect(sessions).toHaveLength(1);
  });
});
