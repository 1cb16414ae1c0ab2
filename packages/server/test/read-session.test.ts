import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createUser } from "../src/accounts/users.ts";
import { type App, buildApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { findSession } from "../src/sessions/sessions.ts";
import { sessionsStore } from "../src/store/sessions.ts";
import { Client, TEST_TEMPLATE, tempDir } from "./harness.ts";

let app: App;
let url: string;
const PASSWORD = "Granite-Kettle-58";

/**
 * The app with one route outside /api that reads the session twice, as the provider's interaction or the legacy
 * callback will (issue #10 §1): routes can only be added before the app starts, so this test builds it itself.
 */
beforeAll(async () => {
  const dir = tempDir();
  mkdirSync(join(dir, "web"));
  writeFileSync(join(dir, "web", "index.html"), TEST_TEMPLATE);
  const config = loadConfig({
    NODE_ENV: "test",
    DATABASE_URL: `sqlite:${join(dir, "gatehouse.db")}`,
    SESSION_SECRET: "test-secret-that-is-long-enough-123456",
    LOG_LEVEL: "silent",
    WEB_DIST: join(dir, "web"),
  });
  app = await buildApp(config, { logger: false });
  app.get("/probe/session", async (request) => {
    const first = await app.readSession(request);
    const again = await app.readSession(request);
    return { userId: first?.user_id ?? null, same: first === again, method: first?.auth_method ?? null };
  });
  // As the provider's end-session will: sign-out from outside /api ends the same gateway session.
  app.post("/probe/sign-out", async (request, reply) => {
    await app.signOut(request, reply);
    return { ended: true };
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  await createUser(app.db, {
    email: "reader@example.com",
    password: PASSWORD,
    firstName: "R",
    lastName: "D",
    countryCode: "DE",
  });
});
afterAll(() => app.close());

describe("app.readSession on any path", () => {
  it("reads the gateway session outside /api, once per request however often it is asked", async () => {
    const c = await new Client(url).start();
    expect((await c.login("reader@example.com", PASSWORD)).status).toBe(200);
    const reads = vi.spyOn(sessionsStore, "findWithUser");
    const answer = await c.get("/probe/session");
    expect(answer.json).toMatchObject({ same: true, method: "password" });
    expect(answer.json.userId).toMatch(/^[0-9a-f-]{36}$/u);
    expect(reads).toHaveBeenCalledTimes(1);
    // Outside /api nothing changes hands: no cookie, no CSRF token.
    expect(answer.headers.getSetCookie()).toEqual([]);
    expect(answer.headers.get("x-csrf-token")).toBeNull();
    reads.mockRestore();
  });

  it("answers no session for a visitor, a malformed cookie or an ended session", async () => {
    expect((await new Client(url).get("/probe/session")).json.userId).toBeNull();
    const forged = new Client(url);
    forged.cookies.set("gh_session", "not-a-token");
    expect((await forged.get("/probe/session")).json.userId).toBeNull();
    const c = await new Client(url).start();
    await c.login("reader@example.com", PASSWORD);
    await c.post("/api/account/logout", {});
    expect((await c.get("/probe/session")).json.userId).toBeNull();
  });

  it("signs the gateway session out from outside /api", async () => {
    const c = await new Client(url).start();
    await c.login("reader@example.com", PASSWORD);
    const token = c.cookies.get("gh_session") ?? "";
    expect((await c.post("/probe/sign-out", {})).json).toEqual({ ended: true });
    expect(await findSession(app.db, token)).toBeUndefined();
    expect(c.cookies.get("gh_session")).not.toBe(token);
    expect((await c.get("/api/session")).status).toBe(204);
  });

  it("adds no database read to a page or an asset that does not ask (issue #9 budgets)", async () => {
    const c = await new Client(url).start();
    await c.login("reader@example.com", PASSWORD);
    const reads = vi.spyOn(sessionsStore, "findWithUser");
    expect((await c.get("/")).status).toBe(200);
    expect((await c.get("/profile/edit")).status).toBe(200);
    expect((await c.get("/no-such-page")).status).toBe(404);
    expect(reads).not.toHaveBeenCalled();
    reads.mockRestore();
  });
});
