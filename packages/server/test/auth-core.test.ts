import { randomUUID } from "node:crypto";
import { ACTIVATION_TTL_MS, PASSWORD_SETUP_TTL_MS, SessionAnswer } from "@gatehouse/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { finishSignIn, maySignInElsewhere } from "../src/accounts/finish-sign-in.ts";
import { createUser, disableUser, type NewUser } from "../src/accounts/users.ts";
import { issueCode } from "../src/codes/codes.ts";
import { findSession, sessionId } from "../src/sessions/sessions.ts";
import { auditStore } from "../src/store/audit.ts";
import { usersStore } from "../src/store/users.ts";
import { Client, expectErrorObject, startServer, type TestServer } from "./harness.ts";

let server: TestServer;
const PASSWORD = "Granite-Kettle-58";
const NEW_PASSWORD = "Copper-Lantern-91!";
const PROFILE = { firstName: "Ann", lastName: "Lee", countryCode: "DE" };
const SETUP_SURVEY = {
  marketingSource: "Other",
  marketingSourceOther: "A friend",
  platformOfInterest: "Revit",
  role: "Architect",
};
let ip = 0;
const client = () => new Client(server.url, { "x-forwarded-for": `198.51.100.${++ip}` }).start();

beforeAll(async () => {
  server = await startServer({ env: { TRUST_PROXY: "true" } });
});
afterAll(() => server.close());

/** A new account with its own address; `owes` sets what it must do at its next sign-in. */
async function account(overrides: Partial<NewUser> = {}) {
  return createUser(server.app.db, {
    email: `${randomUUID()}@example.com`,
    password: PASSWORD,
    ...PROFILE,
    ...overrides,
  });
}

async function signedIn(email: string) {
  const c = await client();
  const answer = await c.login(email, PASSWORD);
  expect(answer.status).toBe(200);
  return { c, answer: answer.json };
}

async function sessionRow(c: Client) {
  const token = c.cookies.get("gh_session") ?? "";
  return server.app.db.selectFrom("sessions").selectAll().where("id", "=", sessionId(token)).executeTakeFirst();
}

const requiredStep = async (c: Client) => SessionAnswer.parse((await c.get("/api/session")).json).RequiredStep;

/** Every account call a session owing a step must not make, with a body that would otherwise pass validation. */
const otherAccountCalls = (step: "password_change" | "profile_update") => [
  ...(step === "password_change"
    ? [
        ["GET", "/api/account/profile", undefined],
        ["PUT", "/api/account/profile", PROFILE],
      ]
    : [["POST", "/api/account/change_password", { oldPassword: PASSWORD, password: NEW_PASSWORD }]]),
  ["POST", "/api/account/delete/request", { password: PASSWORD }],
];

describe("a session that owes the password change (issue #10 §1)", () => {
  it("answers the spec's flags at sign-in and says the step in GET /session", async () => {
    const user = await account({ requirePasswordUpdate: true });
    const { c, answer } = await signedIn(user.email);
    expect(answer).toEqual({ RequiredPasswordUpdate: true, RequiredProfileUpdate: false });
    expect(await requiredStep(c)).toBe("password_change");
  });

  it("cannot read or save the profile, ask for deletion, or make any other account call", async () => {
    const user = await account({ requirePasswordUpdate: true });
    const { c } = await signedIn(user.email);
    for (const [method, path, body] of otherAccountCalls("password_change")) {
      expectErrorObject(await c.request(method as string, path as string, body), 403, "required_step");
    }
    // Nothing happened: no deletion mail was asked for.
    expect((await auditStore.list(server.app.db, 100, user.id)).map((e) => e.event)).not.toContain(
      "deletion_requested",
    );
  });

  it("can change the password, after which everything works, under a new session token", async () => {
    const user = await account({ requirePasswordUpdate: true });
    const { c } = await signedIn(user.email);
    const before = c.cookies.get("gh_session");
    const changed = await c.post("/api/account/change_password", { oldPassword: PASSWORD, password: NEW_PASSWORD });
    expect(changed.status).toBe(200);
    expect(c.cookies.get("gh_session")).not.toBe(before);
    expect(await findSession(server.app.db, before ?? "")).toBeUndefined();
    expect(await requiredStep(c)).toBeNull();
    expect((await c.get("/api/account/profile")).status).toBe(200);
    expect((await c.request("PUT", "/api/account/profile", PROFILE)).status).toBe(200);
    expect((await c.post("/api/account/delete/request", { password: NEW_PASSWORD })).status).toBe(200);
  });

  it("can sign out, and then is a visitor", async () => {
    const user = await account({ requirePasswordUpdate: true });
    const { c } = await signedIn(user.email);
    expect((await c.post("/api/account/logout", {})).status).toBe(200);
    expect((await c.get("/api/session")).status).toBe(204);
  });

  it("still owes it after signing in again, until it is done", async () => {
    const user = await account({ requirePasswordUpdate: true });
    await signedIn(user.email);
    const { c } = await signedIn(user.email);
    expect(await requiredStep(c)).toBe("password_change");
  });

  it("is not allowed to sign the person in elsewhere until the step is done", async () => {
    const user = await account({ requirePasswordUpdate: true });
    const { c } = await signedIn(user.email);
    const owing = await findSession(server.app.db, c.cookies.get("gh_session") ?? "");
    expect(owing?.pending_step).toBe("password_change");
    expect(maySignInElsewhere(owing)).toBe(false);
    await c.post("/api/account/change_password", { oldPassword: PASSWORD, password: NEW_PASSWORD });
    expect(maySignInElsewhere(await findSession(server.app.db, c.cookies.get("gh_session") ?? ""))).toBe(true);
    expect(maySignInElsewhere(undefined)).toBe(false);
  });
});

describe("a session that owes the profile update", () => {
  it("can read and save the profile but not change the password or ask for deletion", async () => {
    const user = await account({ firstName: undefined, lastName: undefined, countryCode: undefined });
    const { c, answer } = await signedIn(user.email);
    expect(answer).toEqual({ RequiredPasswordUpdate: false, RequiredProfileUpdate: true });
    expect(await requiredStep(c)).toBe("profile_update");
    for (const [method, path, body] of otherAccountCalls("profile_update")) {
      expectErrorObject(await c.request(method as string, path as string, body), 403, "required_step");
    }
    expect((await c.get("/api/account/profile")).status).toBe(200);
    expect((await c.request("PUT", "/api/account/profile", PROFILE)).status).toBe(200);
    expect(await requiredStep(c)).toBeNull();
    expect((await c.post("/api/account/delete/request", { password: PASSWORD })).status).toBe(200);
  });

  it("comes after the password change when the account owes both (spec §4 order)", async () => {
    const user = await account({ requirePasswordUpdate: true, firstName: undefined });
    const { c } = await signedIn(user.email);
    expect(await requiredStep(c)).toBe("password_change");
    await c.post("/api/account/change_password", { oldPassword: PASSWORD, password: NEW_PASSWORD });
    expect(await requiredStep(c)).toBe("profile_update");
    expectErrorObject(await c.post("/api/account/delete/request", { password: NEW_PASSWORD }), 403, "required_step");
    await c.request("PUT", "/api/account/profile", PROFILE);
    expect(await requiredStep(c)).toBeNull();
  });

  it("is done for every session of the account once one of them saved the profile", async () => {
    const user = await account({ countryCode: undefined });
    const first = (await signedIn(user.email)).c;
    const second = (await signedIn(user.email)).c;
    expect((await second.request("PUT", "/api/account/profile", PROFILE)).status).toBe(200);
    expect(await requiredStep(first)).toBeNull();
    expect((await first.post("/api/account/delete/request", { password: PASSWORD })).status).toBe(200);
  });
});

describe("finishing a sign-in records how and when", () => {
  it("records auth_time, the method and no provider for a password sign-in, and audits the method", async () => {
    const user = await account();
    const before = Date.now();
    const { c } = await signedIn(user.email);
    const row = await sessionRow(c);
    expect(row).toMatchObject({ auth_method: "password", idp: null, pending_step: null });
    expect(row?.auth_time).toBeGreaterThanOrEqual(before);
    expect(row?.auth_time).toBeLessThanOrEqual(Date.now());
    const events = await auditStore.list(server.app.db, 100, user.id);
    expect(events.find((e) => e.event === "sign_in")?.detail).toBe("password");
  });

  it("keeps auth_time and the method when the session's token rotates after its step", async () => {
    const user = await account({ requirePasswordUpdate: true });
    const { c } = await signedIn(user.email);
    const first = await sessionRow(c);
    await c.post("/api/account/change_password", { oldPassword: PASSWORD, password: NEW_PASSWORD });
    const rotated = await sessionRow(c);
    expect(rotated?.id).not.toBe(first?.id);
    expect(rotated).toMatchObject({ auth_time: first?.auth_time, auth_method: "password", pending_step: null });
  });

  it("records the activation sign-in, and refuses it to a disabled account", async () => {
    const user = await account({ status: "pending" });
    const code = await issueCode(server.app.db, user.id, "activation", ACTIVATION_TTL_MS);
    const c = await client();
    expect((await c.post("/api/account/activation/login", { activationCode: code })).status).toBe(200);
    expect(await sessionRow(c)).toMatchObject({ auth_method: "activation", user_id: user.id });

    const disabled = await account({ status: "pending" });
    const disabledCode = await issueCode(server.app.db, disabled.id, "activation", ACTIVATION_TTL_MS);
    await disableUser(server.app.db, disabled);
    const d = await client();
    expectErrorObject(
      await d.post("/api/account/activation/login", { activationCode: disabledCode }),
      403,
      "user_disabled",
    );
    expect((await d.get("/api/session")).status).toBe(204);
  });

  it("records the password set-up sign-in, owing the profile the invitation left empty", async () => {
    const user = await account({ status: "pending", firstName: undefined, lastName: undefined });
    await usersStore.update(server.app.db, user.id, { password_hash: null });
    const code = await issueCode(server.app.db, user.id, "password_setup", PASSWORD_SETUP_TTL_MS);
    const c = await client();
    const answer = await c.post("/api/account/setup_password", {
      code,
      password: NEW_PASSWORD,
      marketingInfo: SETUP_SURVEY,
    });
    expect(answer.status).toBe(200);
    expect(await sessionRow(c)).toMatchObject({ auth_method: "password_setup", pending_step: "profile_update" });
    expect(await requiredStep(c)).toBe("profile_update");
  });

  it("records the identity provider of a federated sign-in, and refuses pending and disabled accounts", async () => {
    const db = server.app.db;
    const client = { ip: "192.0.2.1", userAgent: "test" };
    const user = await account();
    const outcome = await finishSignIn(db, { user, method: "corporate", idp: "acme", client });
    if (!outcome.ok) throw new Error(outcome.refusal);
    expect(await findSession(db, outcome.token)).toMatchObject({ auth_method: "corporate", idp: "acme" });
    const events = await auditStore.list(db, 100, user.id);
    expect(events.find((e) => e.event === "sign_in")?.detail).toBe("corporate (acme)");

    const pending = await account({ status: "pending" });
    expect(await finishSignIn(db, { user: pending, method: "social", idp: "google", client })).toEqual({
      ok: false,
      refusal: "user_not_active",
    });
    const off = await account();
    await disableUser(db, off);
    const refused = await finishSignIn(db, { user: { ...off, status: "disabled" }, method: "forum", client });
    expect(refused).toEqual({ ok: false, refusal: "user_disabled" });
    expect(await db.selectFrom("sessions").select("id").where("user_id", "in", [pending.id, off.id]).execute()).toEqual(
      [],
    );
  });
});
