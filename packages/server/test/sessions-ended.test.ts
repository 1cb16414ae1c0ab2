import { randomUUID } from "node:crypto";
import { DELETION_TTL_MS, PASSWORD_RESET_TTL_MS, SESSION_IDLE_MS } from "@gatehouse/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser, deleteUser, disableUser } from "../src/accounts/users.ts";
import { issueCode } from "../src/codes/codes.ts";
import type { SessionsEnded } from "../src/events/sessions-ended.ts";
import { findSession, sessionId, sweepSessions } from "../src/sessions/sessions.ts";
import { Client, startServer, type TestServer } from "./harness.ts";

let server: TestServer;
const PASSWORD = "Granite-Kettle-58";
const heard: SessionsEnded[] = [];
let ip = 0;
const client = () => new Client(server.url, { "x-forwarded-for": `192.0.2.${++ip}` }).start();

beforeAll(async () => {
  server = await startServer({ env: { TRUST_PROXY: "true" } });
  server.app.onSessionsEnded((event) => {
    heard.push(event);
  });
  // A listener that fails is logged and does not stop a sign-out or the other listeners.
  server.app.onSessionsEnded(() => {
    throw new Error("listener failure");
  });
});
afterAll(() => server.close());

async function account() {
  return createUser(server.app.db, {
    email: `${randomUUID()}@example.com`,
    password: PASSWORD,
    firstName: "Ann",
    lastName: "Lee",
    countryCode: "DE",
  });
}

/** A signed-in browser of the user, and its stored session id. */
async function signedIn(email: string) {
  const c = await client();
  expect((await c.login(email, PASSWORD)).status).toBe(200);
  return { c, id: sessionId(c.cookies.get("gh_session") ?? "") };
}

/** What the listeners heard about the user's sessions. */
const heardFor = (userId: string) => heard.filter((event) => event.userId === userId);

describe("listeners hear every end of a gateway session (issue #10 §1)", () => {
  it("on sign-out", async () => {
    const user = await account();
    const { c, id } = await signedIn(user.email);
    await c.post("/api/account/logout", {});
    expect(heardFor(user.id)).toEqual([{ userId: user.id, sessionIds: [id], reason: "sign_out" }]);
  });

  it("when a new sign-in in the same browser replaces the session", async () => {
    const user = await account();
    const { c, id } = await signedIn(user.email);
    expect((await c.login(user.email, PASSWORD)).status).toBe(200);
    expect(heardFor(user.id)).toEqual([{ userId: user.id, sessionIds: [id], reason: "replaced" }]);
  });

  it("when a password change ends the other sessions, not the one that changed it", async () => {
    const user = await account();
    const other = await signedIn(user.email);
    const { c } = await signedIn(user.email);
    await c.post("/api/account/change_password", { oldPassword: PASSWORD, password: "Copper-Lantern-91!" });
    expect(heardFor(user.id)).toEqual([{ userId: user.id, sessionIds: [other.id], reason: "password_changed" }]);
  });

  it("when a password reset ends them all", async () => {
    const user = await account();
    const a = await signedIn(user.email);
    const b = await signedIn(user.email);
    const code = await issueCode(server.app.db, user.id, "password_reset", PASSWORD_RESET_TTL_MS);
    await (await client()).post("/api/account/reset_password", { code, password: "Copper-Lantern-91!" });
    const [event] = heardFor(user.id);
    expect(event?.reason).toBe("password_reset");
    expect(event?.sessionIds.sort()).toEqual([a.id, b.id].sort());
  });

  it("when the account is disabled", async () => {
    const user = await account();
    const { id } = await signedIn(user.email);
    await disableUser(server.app.db, user);
    expect(heardFor(user.id)).toEqual([{ userId: user.id, sessionIds: [id], reason: "disabled" }]);
  });

  it("when the account is deleted by its mailed link, or by the admin command", async () => {
    const user = await account();
    const { id } = await signedIn(user.email);
    const code = await issueCode(server.app.db, user.id, "deletion", DELETION_TTL_MS);
    expect((await (await client()).post("/api/account/delete", { deletionCode: code })).status).toBe(200);
    expect(heardFor(user.id)).toEqual([{ userId: user.id, sessionIds: [id], reason: "deleted" }]);

    const other = await account();
    const signed = await signedIn(other.email);
    await deleteUser(server.app.db, other);
    expect(heardFor(other.id)).toEqual([{ userId: other.id, sessionIds: [signed.id], reason: "deleted" }]);
  });

  it("when the sweep removes expired sessions, and when an expired one is read", async () => {
    const user = await account();
    const { id } = await signedIn(user.email);
    await sweepSessions(server.app.db, Date.now() + SESSION_IDLE_MS + 1);
    expect(heardFor(user.id)).toEqual([{ userId: user.id, sessionIds: [id], reason: "expired" }]);

    const late = await account();
    const { c, id: lateId } = await signedIn(late.email);
    const token = c.cookies.get("gh_session") ?? "";
    expect(await findSession(server.app.db, token, Date.now() + SESSION_IDLE_MS + 1)).toBeUndefined();
    expect(heardFor(late.id)).toEqual([{ userId: late.id, sessionIds: [lateId], reason: "expired" }]);
  });

  it("when a disabled account's session is read (the account ended it on another node)", async () => {
    const user = await account();
    const { c, id } = await signedIn(user.email);
    // Another instance disabled the account: this process heard nothing, the database says it.
    await server.app.db.updateTable("users").set({ status: "disabled" }).where("id", "=", user.id).execute();
    expect((await c.get("/api/session")).status).toBe(204);
    expect(heardFor(user.id)).toEqual([{ userId: user.id, sessionIds: [id], reason: "disabled" }]);
  });
});
