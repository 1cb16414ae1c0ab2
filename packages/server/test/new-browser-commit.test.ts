import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createUser } from "../src/accounts/users.ts";
import { newSessionToken } from "../src/sessions/sessions.ts";
import { signIn } from "../src/signin/attempt.ts";
import { proofOf } from "../src/signin/proofs.ts";
import type { Db } from "../src/store/db.ts";
import { describeDatabases, freshPostgres, startServer, type TestServer } from "./harness.ts";
import { REFUSED, refuseWrites } from "./refuse-writes.ts";

const CLIENT = { ip: "192.0.2.1", userAgent: "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0" };
const CONTEXT = { selfOrigin: "http://127.0.0.1:8080", legacyOrigins: [] };

/**
 * Issue #28: the new-browser notice (issue #27) is queued in the transaction that opens the session, so a crash
 * after the sign-in committed cannot lose it, and one before it leaves neither the session nor the notice.
 */
describeDatabases([
  ["SQLite", async () => undefined],
  ["PostgreSQL", freshPostgres],
])("a sign-in and its new-browser notice on %s", (_name, database) => {
  let server: TestServer;
  const db = (): Db => server.app.db;
  beforeAll(async () => {
    server = await startServer({ databaseUrl: await database() });
  });
  afterAll(() => server.close());

  const person = () =>
    createUser(db(), {
      email: `${randomUUID()}@example.com`,
      password: "Granite-Kettle-58",
      firstName: "Ann",
      lastName: "Lee",
      countryCode: "DE",
    });
  const site = () => ({ brand: "default" as const, origin: server.config.brandOrigins.default });
  const seenAs = (deviceId: string) => ({ deviceId, userAgent: CLIENT.userAgent, country: "FR", site: site() });
  const signInAs = (user: Awaited<ReturnType<typeof person>>, deviceId: string) =>
    signIn(
      db(),
      proofOf(user, "password"),
      { token: newSessionToken(), client: CLIENT, seen: seenAs(deviceId) },
      { landing: "/x" },
      CONTEXT,
    );
  const count = async (table: "sessions" | "known_browsers" | "outbox", userId: string) =>
    (await db().selectFrom(table).select("user_id").where("user_id", "=", userId).execute()).length;

  /** Makes every insert into the outbox fail for the length of `work` (a fault after the session's insert). */
  async function outboxFailing(work: () => Promise<unknown>): Promise<void> {
    const restore = await refuseWrites(db(), { table: "outbox", event: "insert" });
    try {
      await expect(work()).rejects.toThrow(REFUSED);
    } finally {
      await restore();
    }
  }

  it("opens the session, learns the browser and queues its notice together", async () => {
    const user = await person();
    expect((await signInAs(user, "first-browser-id-00000")).ok).toBe(true);
    expect(await count("outbox", user.id)).toBe(0);
    expect((await signInAs(user, "second-browser-id-0000")).ok).toBe(true);
    expect(await count("sessions", user.id)).toBe(2);
    expect(await count("known_browsers", user.id)).toBe(2);
    expect(await count("outbox", user.id)).toBe(1);
  });

  it("leaves neither the session nor the known browser when the notice cannot be queued", async () => {
    // Guard: learnBrowser in the session's transaction. Checked: with the notice learnt in a transaction of its own
    // after the session opened (as before issue #28), the session stayed open without its notice.
    const user = await person();
    expect((await signInAs(user, "first-browser-id-00000")).ok).toBe(true);
    await outboxFailing(() => signInAs(user, "second-browser-id-0000"));
    expect(await count("sessions", user.id)).toBe(1);
    expect(await count("known_browsers", user.id)).toBe(1);
    // The same browser's next sign-in is still new to the account, and its notice goes out.
    expect((await signInAs(user, "second-browser-id-0000")).ok).toBe(true);
    expect(await count("outbox", user.id)).toBe(1);
  });
});
