import { join } from "node:path";
import { LOCKOUT_THRESHOLD } from "@gatehouse/contract";
import { expect, it, vi } from "vitest";
import { createUser } from "../src/accounts/users.ts";
import {
  type Client,
  describeDatabases,
  freshPostgres,
  startServer,
  type TestServer,
  tempDir,
  useInstances,
} from "./harness.ts";

/**
 * The soft lock cannot be raced (issue #8): every attempt is counted, atomically, before its password is verified,
 * so a burst of any size, spread over several instances on one database, verifies at most LOCKOUT_THRESHOLD.
 * What is counted is argon2's own `verify`, wrapped (not replaced) to count its calls.
 */
const argon2 = vi.hoisted(() => ({ verifies: 0 }));
vi.mock("@node-rs/argon2", async (importOriginal) => {
  const original = await importOriginal<typeof import("@node-rs/argon2")>();
  return {
    ...original,
    verify: (...args: Parameters<typeof original.verify>) => {
      argon2.verifies++;
      return original.verify(...args);
    },
  };
});

const PASSWORD = "Granite-Kettle-58";
const BURST = 20;

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describeDatabases([
  ["SQLite", async () => `sqlite:${join(tempDir(), "race.db")}`],
  ["PostgreSQL", freshPostgres],
])("sign-in throttle under a burst, two instances on %s", (_name, database) => {
  const { instances, browser } = useInstances(database, (databaseUrl) =>
    startServer({ databaseUrl, env: { TRUST_PROXY: "true" } }),
  );

  const account = async (email: string) => {
    const user = await createUser((instances[0] as TestServer).app.db, { email, password: PASSWORD });
    return user.id;
  };
  const events = async (userId: string, event: string) =>
    (
      await (instances[0] as TestServer).app.db
        .selectFrom("audit")
        .select("id")
        .where("user_id", "=", userId)
        .where("event", "=", event)
        .execute()
    ).length;

  it(`verifies at most ${LOCKOUT_THRESHOLD} of ${BURST} concurrent wrong passwords, and writes one lockout`, async () => {
    const userId = await account("burst@example.com");
    const browsers = await Promise.all(Array.from({ length: BURST }, (_, i) => browser(i)));
    const before = argon2.verifies;
    const answers = await Promise.all(browsers.map((b, i) => b.login("burst@example.com", `wrong password ${i}`)));
    expect(argon2.verifies - before).toBeLessThanOrEqual(LOCKOUT_THRESHOLD);
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 401)).toHaveLength(LOCKOUT_THRESHOLD - 1);
    expect(statuses.filter((s) => s === 429)).toHaveLength(BURST - LOCKOUT_THRESHOLD + 1);
    expect(await events(userId, "sign_in_failed")).toBe(LOCKOUT_THRESHOLD - 1);
    expect(await events(userId, "lockout")).toBe(1);
    expect((await (await browser(0)).login("burst@example.com", PASSWORD)).status).toBe(429);
  });

  it("does not sign in with the right password once the burst has used up the allowance, while it is still being verified", async () => {
    await account("racer@example.com");
    const browsers = await Promise.all(Array.from({ length: BURST + 1 }, (_, i) => browser(i)));
    const owner = browsers.pop() as Client;
    const before = argon2.verifies;
    const burst = Promise.all(browsers.map((b, i) => b.login("racer@example.com", `wrong password ${i}`)));
    // Once the threshold's worth of verifications has begun, the allowance is spent, whatever is still running.
    await until(() => argon2.verifies - before >= LOCKOUT_THRESHOLD, "the burst's verifications");
    const right = await owner.login("racer@example.com", PASSWORD);
    await burst;
    expect(right.status).toBe(429);
    expect(argon2.verifies - before).toBeLessThanOrEqual(LOCKOUT_THRESHOLD);
  });

  it("still signs in with a right password inside the allowance, which starts the count again", async () => {
    await account("steady@example.com");
    for (let round = 0; round < 2; round++) {
      for (let i = 1; i < LOCKOUT_THRESHOLD; i++)
        expect((await (await browser(i)).login("steady@example.com", "wrong password")).status).toBe(401);
      expect((await (await browser(round)).login("steady@example.com", PASSWORD)).status).toBe(200);
    }
  });
});
