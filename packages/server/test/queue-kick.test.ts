import { afterAll, beforeAll, expect, it } from "vitest";
import { createUser } from "../src/accounts/users.ts";
import { Client, describeDatabases, freshPostgres, startServer, type TestServer } from "./harness.ts";
import { TestSmtp } from "./smtp.ts";

/**
 * Issue #28: work queued by a request leaves once the request has answered (its transaction committed), not at the
 * worker's next pass. The worker's passes are an hour apart here, so only the wake-up can send it. The new-browser
 * mail of a sign-in is the case: no route kicks the worker for it.
 */
const HOUR = 3_600_000;
const PASSWORD = "Granite-Kettle-58";

describeDatabases([
  ["SQLite", async () => undefined],
  ["PostgreSQL", freshPostgres],
])("the queue woken after a request that queued work, on %s", (_name, database) => {
  let smtp: TestSmtp;
  let server: TestServer;

  beforeAll(async () => {
    smtp = await new TestSmtp().start();
    const databaseUrl = await database();
    server = await startServer({
      env: { SMTP_URL: smtp.url, TRUST_PROXY: "true", ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) },
      app: { mailIntervalMs: HOUR, jobIntervalMs: HOUR },
    });
  });
  afterAll(async () => {
    await server?.close();
    await smtp?.stop();
  });

  it("sends a sign-in's new-browser mail at once", async () => {
    // Guard: the onResponse hook in app.ts. Checked: without it, no mail arrived (the next pass was an hour away).
    const email = "kick.browser@example.com";
    await createUser(server.app.db, {
      email,
      password: PASSWORD,
      firstName: "Ann",
      lastName: "Lee",
      countryCode: "DE",
    });
    const browser = async (n: number) => {
      const c = await new Client(server.url, {
        "x-forwarded-for": `198.51.100.${n}`,
        "user-agent": `Browser ${n}`,
      }).start();
      expect((await c.login(email, PASSWORD)).status).toBe(200);
    };
    await browser(1);
    await browser(2);
    const mail = await smtp.waitFor(email, 10_000);
    expect(mail.text).toContain("change your password");
  });
});
