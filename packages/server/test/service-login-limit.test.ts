/**
 * Issue #28: POST /api/service_login/finish (each may create a grant with an offline refresh token) is limited per
 * client address and per account, so someone holding a password cannot mint tens of thousands of grants; on
 * SQLite and PostgreSQL.
 */
import { randomUUID } from "node:crypto";
import { RATE_LIMITS, SERVICE_LOGIN_FINISH_PER_ACCOUNT } from "@gatehouse/contract";
import { afterEach, expect, it } from "vitest";
import { createUser } from "../src/accounts/users.ts";
import { accountLimitKey } from "../src/http/rate-limit.ts";
import {
  Client,
  describeDatabases,
  expectErrorObject,
  freshPostgres,
  startServer,
  type TestServer,
  tempDir,
} from "./harness.ts";

const PASSWORD = "quiet harbour lantern 42";
const FINISH = "/api/service_login/finish";

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(databaseUrl: string): Promise<TestServer> {
  const server = await startServer({ databaseUrl, env: { TRUST_PROXY: "true" } });
  servers.push(server);
  return server;
}

/** A browser at `address`, signed in to a new account; answers the account's id too. */
async function signedIn(server: TestServer, address: string) {
  const email = `${randomUUID()}@example.com`;
  const user = await createUser(server.app.db, {
    email,
    password: PASSWORD,
    firstName: "Ann",
    lastName: "Lee",
    countryCode: "DE",
    emailVerified: true,
  });
  const browser = await new Client(server.url, { "x-forwarded-for": address }).start();
  expect((await browser.login(email, PASSWORD)).status).toBe(200);
  return { browser, userId: user.id, email };
}

describeDatabases([
  ["SQLite", async () => `sqlite:${tempDir()}/finish.db`],
  ["PostgreSQL", freshPostgres],
])("the service sign-in's finish on %s", (_name, url) => {
  it("is limited per client address", async () => {
    const server = await start(await url());
    const browser = await new Client(server.url, { "x-forwarded-for": "203.0.113.70" }).start();
    // No sign-in under way: each call is answered 404, and counted.
    for (let i = 0; i < RATE_LIMITS.serviceLoginFinish.max; i++)
      expect((await browser.post(FINISH, { consent: false })).status).toBe(404);
    const refused = await browser.post(FINISH, { consent: false });
    expectErrorObject(refused, 429, "rate_limited");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    // Another address is counted apart.
    const other = await new Client(server.url, { "x-forwarded-for": "203.0.113.71" }).start();
    expect((await other.post(FINISH, { consent: false })).status).toBe(404);
  });

  it("is limited per account, from any address", async () => {
    const server = await start(await url());
    const { browser, userId, email } = await signedIn(server, "203.0.113.80");
    // The account has finished all but one of its day's sign-ins (from other addresses, as an attacker would).
    const windowEnds = Date.now() + SERVICE_LOGIN_FINISH_PER_ACCOUNT.windowMs;
    await server.app.db
      .insertInto("rate_limits")
      .values({
        key: accountLimitKey("serviceLoginFinish", userId),
        hits: SERVICE_LOGIN_FINISH_PER_ACCOUNT.max - 1,
        window_ends: windowEnds,
      })
      .execute();
    expect((await browser.post(FINISH, { consent: false })).status).toBe(404);
    const refused = await browser.post(FINISH, { consent: false });
    expectErrorObject(refused, 429, "rate_limited");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(3600);
    // The same account from a fresh address is still refused; another account is not.
    const elsewhere = await new Client(server.url, { "x-forwarded-for": "198.51.100.9" }).start();
    expect((await elsewhere.login(email, PASSWORD)).status).toBe(200);
    expectErrorObject(await elsewhere.post(FINISH, { consent: false }), 429, "rate_limited");
    const { browser: another } = await signedIn(server, "203.0.113.81");
    expect((await another.post(FINISH, { consent: false })).status).toBe(404);
  });
});
