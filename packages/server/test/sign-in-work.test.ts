import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { concurrencyLimit } from "../src/accounts/concurrency.ts";
import { createUser } from "../src/accounts/users.ts";
import { sessionsStore } from "../src/store/sessions.ts";
import { usersStore } from "../src/store/users.ts";
import { Client, startServer, type TestServer } from "./harness.ts";

/** Issue #9: a password sign-in does no database work it does not need, and keeps every security step. */
let server: TestServer;
beforeAll(async () => {
  server = await startServer();
  await createUser(server.app.db, {
    email: "work@example.com",
    password: "correct horse battery",
    firstName: "Wor",
    lastName: "K",
    countryCode: "DE",
  });
});
afterAll(() => server.close());
afterEach(() => vi.restoreAllMocks());

describe("the work of a sign-in", () => {
  it("reads the user row once: the device cookie is made from the row the check read", async () => {
    const client = await new Client(server.url).start();
    const byId = vi.spyOn(usersStore, "findById");
    const byEmail = vi.spyOn(usersStore, "findByEmail");
    const answer = await client.login("work@example.com", "correct horse battery");
    expect(answer.status).toBe(200);
    expect(byEmail).toHaveBeenCalledTimes(1);
    expect(byId).not.toHaveBeenCalled();
    expect([...client.cookies.keys()]).toContain("gh_device");
  });

  it("deletes no session row for a visitor (it has none), and still ends a signed-in session it replaces", async () => {
    const client = await new Client(server.url).start();
    const deletes = vi.spyOn(sessionsStore, "delete");
    expect((await client.login("work@example.com", "correct horse battery")).status).toBe(200);
    expect(deletes).not.toHaveBeenCalled();

    const first = client.cookies.get("gh_session");
    expect((await client.login("work@example.com", "correct horse battery")).status).toBe(200);
    expect(deletes).toHaveBeenCalledTimes(1);
    // ASVS 7.2.4: the old token is dead, the new one is signed in.
    const old = new Client(server.url);
    old.cookies.set("gh_session", first as string);
    expect((await old.get("/api/session")).status).toBe(204);
    expect((await client.get("/api/session")).json.Email).toBe("work@example.com");
  });
});

describe("concurrencyLimit", () => {
  it("runs no more tasks at once than it has slots, in arrival order, and frees a slot on failure", async () => {
    const limit = concurrencyLimit(2);
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const task = (n: number) => async () => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, 5));
      running -= 1;
      order.push(n);
      if (n === 1) throw new Error("fails");
      return n;
    };
    const results = await Promise.allSettled([1, 2, 3, 4, 5].map((n) => limit(task(n))));
    expect(most).toBe(2);
    expect(results.map((r) => r.status)).toEqual(["rejected", "fulfilled", "fulfilled", "fulfilled", "fulfilled"]);
    expect(order.slice(0, 2).sort()).toEqual([1, 2]);
    expect(await limit(async () => "free")).toBe("free");
  });
});
