import { randomUUID } from "node:crypto";
import {
  ACTIVATION_TTL_MS,
  BRANDS,
  type NextStep,
  PASSWORD_SETUP_TTL_MS,
  SIGN_IN_ATTEMPT_TTL_MS,
  SignInAttemptAnswer,
  trialAddress,
} from "@gatehouse/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser, disableUser, type NewUser } from "../src/accounts/users.ts";
import { issueCode } from "../src/codes/codes.ts";
import { findSession, newSessionToken, openSession, sessionId } from "../src/sessions/sessions.ts";
import { findAttempt, signIn, stepDone } from "../src/signin/attempt.ts";
import { verifyActivation, verifySetup } from "../src/signin/mailed-code.ts";
import { nextStep } from "../src/signin/next.ts";
import { verifyPassword } from "../src/signin/password.ts";
import { proofOf } from "../src/signin/proofs.ts";
import { auditStore } from "../src/store/audit.ts";
import { usersStore } from "../src/store/users.ts";
import { Client, expectErrorObject, startServer, type TestServer } from "./harness.ts";

/**
 * The sign-in core (issue #24 §1): verifiers give proofs, a sign-in attempt holds what is owed, only a finished
 * attempt opens a session, and one "next step" says where every sign-in goes.
 */
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
const CLIENT = { ip: "192.0.2.1", userAgent: "test" };
/** The test server answers on 127.0.0.1, a host of the development brands file that lands on the account page. */
const SELF = "http://127.0.0.1:8080";
const CONTEXT = { selfOrigin: SELF, legacyOrigins: ["https://legacy.example"] };
let ip = 0;
const client = () => new Client(server.url, { "x-forwarded-for": `198.51.100.${++ip}` }).start();
const db = () => server.app.db;

beforeAll(async () => {
  server = await startServer({ env: { TRUST_PROXY: "true" } });
});
afterAll(() => server.close());

/** A new account with its own address; `overrides` set what it owes at its next sign-in. */
function account(overrides: Partial<NewUser> = {}) {
  return createUser(db(), { email: `${randomUUID()}@example.com`, password: PASSWORD, ...PROFILE, ...overrides });
}

async function signInWith(email: string, body: Record<string, unknown> = {}) {
  const c = await client();
  const answer = await c.post("/api/account/login", { email, password: PASSWORD, ...body });
  expect(answer.status).toBe(200);
  return {
    c,
    answer: answer.json as { RequiredPasswordUpdate: boolean; RequiredProfileUpdate: boolean; next: NextStep },
  };
}

const sessionRows = (userId: string) => db().selectFrom("sessions").selectAll().where("user_id", "=", userId).execute();

describe("the next step (signin/next.ts)", () => {
  const landing = "/profile/edit";
  it("sends an owed step first, keeping where the sign-in goes as its return address", () => {
    expect(nextStep("password_change", { landing, returnTo: "https://www.gatehouse.example/x" }, CONTEXT)).toEqual({
      kind: "step",
      url: "/account/password-change?required_password_update=true&return_to=https%3A%2F%2Fwww.gatehouse.example%2Fx",
    });
    expect(nextStep("profile_update", { landing }, CONTEXT)).toEqual({
      kind: "step",
      url: "/profile/edit?required_profile_update=true",
    });
  });

  it("then the provider's sign-in, a legacy site's token flow, the return address, or the landing page", () => {
    expect(nextStep(null, { landing, returnTo: `${SELF}/service_login` }, CONTEXT)).toEqual({
      kind: "provider",
      url: "/service_login",
    });
    expect(nextStep(null, { landing, returnTo: `${SELF}/service_login?client_brand=engine` }, CONTEXT)).toEqual({
      kind: "provider",
      url: "/service_login?client_brand=engine",
    });
    // Only on this host: another host's /service_login is just an address.
    expect(nextStep(null, { landing, returnTo: "https://www.gatehouse.example/service_login" }, CONTEXT).kind).toBe(
      "return",
    );
    expect(nextStep(null, { landing, returnTo: "https://legacy.example/app" }, CONTEXT)).toEqual({
      kind: "legacy",
      url: "https://legacy.example/app",
    });
    expect(nextStep(null, { landing, returnTo: `${SELF}/api/studio/complete` }, CONTEXT)).toEqual({
      kind: "return",
      url: `${SELF}/api/studio/complete`,
    });
    expect(nextStep(null, { landing }, CONTEXT)).toEqual({ kind: "landing", url: landing });
  });
});

describe("the verifiers (signin/password.ts, mailed-code.ts)", () => {
  it("proves a password with pwd, and audits a refusal itself", async () => {
    const user = await account();
    const proven = await verifyPassword(db(), { email: user.email, password: PASSWORD, source: { client: CLIENT } });
    expect(proven).toMatchObject({ ok: true, proof: { method: "password", amr: ["pwd"] } });
    const wrong = await verifyPassword(db(), {
      email: user.email,
      password: "nope-nope-1",
      source: { client: CLIENT },
    });
    expect(wrong).toEqual({ ok: false, refusal: { code: "invalid_authentication" } });
    const events = await auditStore.list(db(), 100, user.id);
    expect(events.find((e) => e.event === "sign_in_failed")).toMatchObject({
      ip: CLIENT.ip,
      detail: "invalid_authentication",
    });
  });

  it("proves an activation code once, with otp", async () => {
    const user = await account({ status: "pending" });
    const code = await issueCode(db(), user.id, "activation", ACTIVATION_TTL_MS);
    const proven = await verifyActivation(db(), code, newSessionToken());
    expect(proven).toMatchObject({
      ok: true,
      proof: { method: "activation", amr: ["otp"], user: { status: "active" } },
    });
    expect(await verifyActivation(db(), code, newSessionToken())).toEqual({
      ok: false,
      refusal: { code: "account_already_active", temporary: false },
    });
  });

  it("proves a set-up code with the password it sets, refusing a weak one on its field before the code is spent", async () => {
    const user = await account({ status: "pending" });
    await usersStore.update(db(), user.id, { password_hash: null });
    const code = await issueCode(db(), user.id, "password_setup", PASSWORD_SETUP_TTL_MS);
    const weak = await verifySetup(db(), { code, password: "password", marketingInfo: SETUP_SURVEY, client: CLIENT });
    expect(weak).toMatchObject({ ok: false, refusal: { field: "password" } });
    const proven = await verifySetup(db(), {
      code,
      password: NEW_PASSWORD,
      marketingInfo: SETUP_SURVEY,
      client: CLIENT,
    });
    expect(proven).toMatchObject({ ok: true, proof: { method: "password_setup", user: { status: "active" } } });
  });
});

describe("a sign-in attempt (signin/attempt.ts)", () => {
  it("opens a session at once when nothing is owed, with amr and auth_time from the proof", async () => {
    const user = await account();
    const browser = { token: newSessionToken(), client: CLIENT };
    const outcome = await signIn(db(), proofOf(user, "corporate", "acme"), browser, { landing: "/x" }, CONTEXT, 1_000);
    if (!outcome.ok || !outcome.session) throw new Error("not signed in");
    expect(outcome.next).toEqual({ kind: "landing", url: "/x" });
    expect(await findSession(db(), outcome.session, 2_000)).toMatchObject({
      auth_method: "corporate",
      idp: "acme",
      amr: "fed",
      auth_time: 1_000,
    });
    const events = await auditStore.list(db(), 100, user.id);
    expect(events.find((e) => e.event === "sign_in")?.detail).toBe("corporate (acme)");
  });

  it("opens no session while a step is owed, and none for a pending or disabled account", async () => {
    const owing = await account({ requirePasswordUpdate: true });
    const browser = { token: newSessionToken(), client: CLIENT };
    const outcome = await signIn(db(), proofOf(owing, "password"), browser, { landing: "/x" }, CONTEXT);
    expect(outcome).toEqual({
      ok: true,
      next: { kind: "step", url: "/account/password-change?required_password_update=true" },
    });
    expect(await sessionRows(owing.id)).toEqual([]);
    expect(await findAttempt(db(), browser.token)).toMatchObject({ user_id: owing.id, owes: "password_change" });
    // Bound to the browser: another cookie finds nothing.
    expect(await findAttempt(db(), newSessionToken())).toBeUndefined();

    const pending = await account({ status: "pending" });
    expect(await signIn(db(), proofOf(pending, "social", "google"), browser, { landing: "/x" }, CONTEXT)).toEqual({
      ok: false,
      refusal: { code: "user_not_active" },
    });
    const off = await account();
    await disableUser(db(), off);
    const disabled = { ...off, status: "disabled" as const };
    expect(await signIn(db(), proofOf(disabled, "forum"), browser, { landing: "/x" }, CONTEXT)).toEqual({
      ok: false,
      refusal: { code: "user_disabled" },
    });
    expect(
      await db().selectFrom("sessions").select("id").where("user_id", "in", [pending.id, off.id]).execute(),
    ).toEqual([]);
  });

  it("continues nothing for an account disabled meanwhile", async () => {
    const user = await account({ requirePasswordUpdate: true });
    const browser = { token: newSessionToken(), client: CLIENT };
    await signIn(db(), proofOf(user, "password"), browser, { landing: "/x" }, CONTEXT);
    expect(await findAttempt(db(), browser.token)).toBeDefined();
    await disableUser(db(), user);
    expect(await findAttempt(db(), browser.token)).toBeUndefined();
  });

  it("leaves no unfinished attempt behind once a sign-in in the same browser finishes", async () => {
    const owing = await account({ requirePasswordUpdate: true });
    const other = await account();
    const browser = { token: newSessionToken(), client: CLIENT };
    await signIn(db(), proofOf(owing, "password"), browser, { landing: "/x" }, CONTEXT);
    await signIn(db(), proofOf(other, "password"), browser, { landing: "/x" }, CONTEXT);
    expect(await findAttempt(db(), browser.token)).toBeUndefined();
  });

  it("expires: an attempt left longer than SIGN_IN_ATTEMPT_TTL_MS is gone", async () => {
    const user = await account({ requirePasswordUpdate: true });
    const browser = { token: newSessionToken(), client: CLIENT };
    await signIn(db(), proofOf(user, "password"), browser, { landing: "/x" }, CONTEXT, 10_000);
    expect(await findAttempt(db(), browser.token, 10_000 + SIGN_IN_ATTEMPT_TTL_MS - 1)).toBeDefined();
    expect(await findAttempt(db(), browser.token, 10_000 + SIGN_IN_ATTEMPT_TTL_MS)).toBeUndefined();
  });

  it("finishes once its steps are done: one request takes it, the session keeps the first proof's time", async () => {
    const user = await account({ requirePasswordUpdate: true });
    const browser = { token: newSessionToken(), client: CLIENT };
    await signIn(db(), proofOf(user, "password"), browser, { landing: "/x" }, CONTEXT, 5_000);
    const attempt = await findAttempt(db(), browser.token, 6_000);
    if (!attempt) throw new Error("no attempt");
    const done = { ...user, required_password_update: 0 };
    const [first, second] = await Promise.all([
      stepDone(db(), attempt, "password_change", done, browser, CONTEXT, 6_000),
      stepDone(db(), attempt, "password_change", done, browser, CONTEXT, 6_000),
    ]);
    const finished = [first, second].filter((o) => o.ok);
    expect(finished).toHaveLength(1);
    expect([first, second].filter((o) => !o.ok)).toEqual([{ ok: false, refusal: { code: "not_authenticated" } }]);
    const session = finished[0]?.ok ? finished[0].session : undefined;
    expect(await findSession(db(), session ?? "", 7_000)).toMatchObject({ auth_time: 5_000, amr: "pwd" });
  });

  it("ends another person's session in the browser at once, and keeps the same person's until it finishes", async () => {
    const previous = await account();
    const token = await openSession(
      db(),
      { userId: previous.id, method: "password", amr: ["pwd"], authTime: 1 },
      CLIENT,
    );
    const next = await account({ requirePasswordUpdate: true });
    await signIn(
      db(),
      proofOf(next, "password"),
      { token, signedIn: token, client: CLIENT },
      { landing: "/x" },
      CONTEXT,
    );
    expect(await findSession(db(), token)).toBeUndefined();

    const same = await account({ countryCode: undefined });
    const own = await openSession(db(), { userId: same.id, method: "password", amr: ["pwd"], authTime: 1 }, CLIENT);
    await usersStore.update(db(), same.id, { required_profile_update: 1 });
    await signIn(
      db(),
      proofOf({ ...same, required_profile_update: 1 }, "password"),
      { token: own, signedIn: own, client: CLIENT },
      { landing: "/x" },
      CONTEXT,
    );
    expect(await findSession(db(), own)).toBeDefined();
  });
});

describe("owing the password change (API)", () => {
  it("answers the spec's flags and the step as next, with no session: GET /session is a visitor's", async () => {
    const user = await account({ requirePasswordUpdate: true });
    const { c, answer } = await signInWith(user.email);
    expect(answer).toEqual({
      RequiredPasswordUpdate: true,
      RequiredProfileUpdate: false,
      next: { kind: "step", url: "/account/password-change?required_password_update=true" },
    });
    expect((await c.get("/api/session")).status).toBe(204);
    expect(await sessionRows(user.id)).toEqual([]);
    expect(SignInAttemptAnswer.parse((await c.get("/api/sign-in/attempt")).json)).toEqual({
      owes: "password_change",
      next: answer.next,
    });
  });

  it("may make only its step's call: the profile, deletion and the rest answer 401", async () => {
    const user = await account({ requirePasswordUpdate: true });
    const { c } = await signInWith(user.email);
    expectErrorObject(await c.get("/api/account/profile"), 401, "not_authenticated");
    expectErrorObject(await c.request("PUT", "/api/account/profile", PROFILE), 401, "not_authenticated");
    expectErrorObject(await c.post("/api/account/delete/request", { password: PASSWORD }), 401, "not_authenticated");
    expectErrorObject(await c.get("/api/account/identities"), 401, "not_authenticated");
  });

  it("changes the password, and only then opens the session, going on where the sign-in was going", async () => {
    const user = await account({ requirePasswordUpdate: true });
    const { c } = await signInWith(user.email, { returnTo: "https://www.gatehouse.example/shop" });
    const changed = await c.post("/api/account/change_password", { oldPassword: PASSWORD, password: NEW_PASSWORD });
    expect(changed.status).toBe(200);
    expect(changed.json).toEqual({ next: { kind: "return", url: "https://www.gatehouse.example/shop" } });
    expect((await c.get("/api/session")).status).toBe(200);
    expect(await sessionRows(user.id)).toHaveLength(1);
    expectErrorObject(await c.get("/api/sign-in/attempt"), 404, "not_found");
    expect((await c.post("/api/account/delete/request", { password: NEW_PASSWORD })).status).toBe(200);
  });

  it("is the attempt of this browser only: another browser's change answers 401", async () => {
    const user = await account({ requirePasswordUpdate: true });
    await signInWith(user.email);
    const stranger = await client();
    expectErrorObject(
      await stranger.post("/api/account/change_password", { oldPassword: PASSWORD, password: NEW_PASSWORD }),
      401,
      "not_authenticated",
    );
  });

  it("ends with sign-out: the attempt is gone", async () => {
    const user = await account({ requirePasswordUpdate: true });
    const { c } = await signInWith(user.email);
    expect((await c.post("/api/account/logout", {})).status).toBe(200);
    expectErrorObject(await c.get("/api/sign-in/attempt"), 404, "not_found");
    const rows = await db().selectFrom("sign_in_attempts").select("id").where("user_id", "=", user.id).execute();
    expect(rows).toEqual([]);
  });
});

describe("owing the profile (API)", () => {
  it("reads and saves the profile as the step, then the session opens and lands on this host's page", async () => {
    const user = await account({ countryCode: undefined });
    const { c, answer } = await signInWith(user.email);
    expect(answer).toMatchObject({
      RequiredProfileUpdate: true,
      next: { kind: "step", url: "/profile/edit?required_profile_update=true" },
    });
    expect((await c.get("/api/account/profile")).json).toMatchObject({ email: user.email, countryCode: "ZZ" });
    expectErrorObject(
      await c.post("/api/account/change_password", { oldPassword: PASSWORD, password: NEW_PASSWORD }),
      401,
      "not_authenticated",
    );
    const saved = await c.request("PUT", "/api/account/profile", PROFILE);
    // The development brands file's 127.0.0.1 lands on the account page (issue #24 §3).
    expect(saved.json).toEqual({ next: { kind: "landing", url: "/profile/edit" } });
    expect((await c.get("/api/session")).status).toBe(200);
  });

  it("comes after the password change when both are owed (spec §4 order)", async () => {
    const user = await account({ requirePasswordUpdate: true, countryCode: undefined });
    const { c } = await signInWith(user.email);
    const changed = await c.post("/api/account/change_password", { oldPassword: PASSWORD, password: NEW_PASSWORD });
    expect(changed.json).toEqual({ next: { kind: "step", url: "/profile/edit?required_profile_update=true" } });
    expect((await c.get("/api/session")).status).toBe(204);
    const saved = await c.request("PUT", "/api/account/profile", PROFILE);
    expect(saved.json).toMatchObject({ next: { kind: "landing" } });
    expect((await c.get("/api/session")).status).toBe(200);
  });

  it("answers a signed-in person's own save with no next", async () => {
    const user = await account();
    const { c, answer } = await signInWith(user.email);
    expect(answer.next.kind).toBe("landing");
    expect((await c.request("PUT", "/api/account/profile", PROFILE)).json).toEqual({});
  });
});

describe("every sign-in answers its next", () => {
  it("login: the return address, the provider's sign-in, a trial's address, a refused address's landing", async () => {
    const user = await account();
    expect((await signInWith(user.email, { returnTo: "/service_login" })).answer.next).toEqual({
      kind: "provider",
      url: "/service_login",
    });
    expect((await signInWith(user.email, { returnTo: "https://evil.example/" })).answer.next).toEqual({
      kind: "landing",
      url: "/profile/edit",
    });
    expect((await signInWith(user.email, { returnTo: "/api/studio/complete" })).answer.next).toEqual({
      kind: "return",
      url: "/api/studio/complete",
    });
    const trial = await signInWith(user.email, { isTrial: true, productCode: "render-pro" });
    expect(trial.answer.next).toEqual({
      kind: "landing",
      url: trialAddress(BRANDS.default, { isNewAccount: false, productCode: "render-pro" }),
    });
  });

  it("activation: a session, going on to the link's return address", async () => {
    const user = await account({ status: "pending" });
    const code = await issueCode(db(), user.id, "activation", ACTIVATION_TTL_MS);
    const c = await client();
    const answer = await c.post("/api/account/activation/login", {
      activationCode: code,
      returnTo: "https://cloud.gatehouse.example/start",
    });
    expect(answer.json).toEqual({
      Trial: null,
      next: { kind: "return", url: "https://cloud.gatehouse.example/start" },
    });
    expect(await sessionRows(user.id)).toMatchObject([{ auth_method: "activation", amr: "otp" }]);
  });

  it("set-up: the customer portal, or first the profile the invitation left empty", async () => {
    const user = await account({ status: "pending", firstName: undefined, lastName: undefined });
    await usersStore.update(db(), user.id, { password_hash: null });
    const code = await issueCode(db(), user.id, "password_setup", PASSWORD_SETUP_TTL_MS);
    const c = await client();
    const answer = await c.post("/api/account/setup_password", {
      code,
      password: NEW_PASSWORD,
      marketingInfo: SETUP_SURVEY,
    });
    expect(answer.json).toEqual({ next: { kind: "step", url: "/profile/edit?required_profile_update=true" } });
    expect(await sessionRows(user.id)).toEqual([]);
    const saved = await c.request("PUT", "/api/account/profile", PROFILE);
    expect(saved.json).toEqual({ next: { kind: "landing", url: BRANDS.default.links.portal } });
    expect(await sessionRows(user.id)).toMatchObject([{ auth_method: "password_setup" }]);
  });

  it("reset: no sign-in (spec §4: the person signs in with the new password), and any attempt ends", async () => {
    const user = await account({ requirePasswordUpdate: true });
    const { c } = await signInWith(user.email);
    const code = await issueCode(db(), user.id, "password_reset", ACTIVATION_TTL_MS);
    expect((await (await client()).post("/api/account/reset_password", { code, password: NEW_PASSWORD })).json).toEqual(
      {},
    );
    expectErrorObject(await c.get("/api/sign-in/attempt"), 404, "not_found");
  });
});

it("sessions opened by the core are findable by their token's hash only", async () => {
  const user = await account();
  const { c } = await signInWith(user.email);
  const token = c.cookies.get("gh_session") ?? "";
  const [row] = await sessionRows(user.id);
  expect(row?.id).toBe(sessionId(token));
});
