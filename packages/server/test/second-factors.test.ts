import { randomUUID } from "node:crypto";
import { join } from "node:path";
import {
  DELETION_TTL_MS,
  LOCKOUT_THRESHOLD,
  LOCKOUT_WINDOW_MS,
  RECOVERY_CODES_COUNT,
  SECOND_FACTOR_FAILURES_MAX,
  STEP_UP_MS,
  TOTP,
} from "@gatehouse/contract";
import { Secret } from "otpauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteAccount } from "../src/accounts/deletion.ts";
import { createUser } from "../src/accounts/users.ts";
import { issueCode } from "../src/codes/codes.ts";
import { newRecoveryCodes, normalizeRecoveryCode, spendRecoveryCode } from "../src/factors/recovery-codes.ts";
import { resetFactors } from "../src/factors/reset.ts";
import { checkCode } from "../src/factors/second-factor.ts";
import { matchingStep, openSecret, sealSecret, timeStep, totpCode, totpUri } from "../src/factors/totp.ts";
import type { UserRow } from "../src/store/schema.ts";
import { codeFailuresKey, secondFactorsStore } from "../src/store/second-factors.ts";
import {
  Client,
  describeDatabases,
  expectErrorObject,
  freshPostgres,
  startServer,
  type TestServer,
  tempDir,
} from "./harness.ts";

/** Issue #26: authenticator apps, recovery codes, the second factor at sign-in, remembered browsers, step-up. */

/** RFC 6238 Appendix B's SHA-1 seed, ASCII "12345678901234567890". */
const RFC_SECRET = Secret.fromLatin1("12345678901234567890").base32;
const PERIOD_MS = TOTP.periodS * 1000;

describeDatabases([["SQLite"]])("authenticator codes (RFC 6238)", () => {
  it.each([
    [59, "287082"],
    [1111111109, "081804"],
    [1111111111, "050471"],
    [1234567890, "005924"],
    [2000000000, "279037"],
    [20000000000, "353130"],
  ])("at T = %i s the code is %s (Appendix B, six digits)", (seconds, code) => {
    expect(totpCode(RFC_SECRET, seconds * 1000)).toBe(code);
    expect(matchingStep(RFC_SECRET, code, seconds * 1000)).toBe(Math.floor(seconds / 30));
  });

  it("accepts one step of drift either way, not two", () => {
    const now = 1_700_000_000_000;
    const step = timeStep(now);
    expect(matchingStep(RFC_SECRET, totpCode(RFC_SECRET, now - PERIOD_MS), now)).toBe(step - 1);
    expect(matchingStep(RFC_SECRET, totpCode(RFC_SECRET, now + PERIOD_MS), now)).toBe(step + 1);
    expect(matchingStep(RFC_SECRET, totpCode(RFC_SECRET, now - 2 * PERIOD_MS), now)).toBeNull();
    expect(matchingStep(RFC_SECRET, totpCode(RFC_SECRET, now + 2 * PERIOD_MS), now)).toBeNull();
    expect(matchingStep(RFC_SECRET, "12345", now)).toBeNull();
  });

  it("makes the otpauth URI apps scan, with the brand as issuer", () => {
    const uri = new URL(totpUri(RFC_SECRET, "ann@example.com", "Archviz"));
    expect(uri.protocol).toBe("otpauth:");
    expect(uri.host).toBe("totp");
    expect(decodeURIComponent(uri.pathname)).toBe("/Archviz:ann@example.com");
    expect(uri.searchParams.get("secret")).toBe(RFC_SECRET);
    expect(uri.searchParams.get("issuer")).toBe("Archviz");
    expect(uri.searchParams.get("algorithm")).toBe("SHA1");
    expect(uri.searchParams.get("digits")).toBe("6");
    expect(uri.searchParams.get("period")).toBe("30");
  });

  it("seals the secret at rest for one account under SESSION_SECRET", () => {
    const secret = "s".repeat(40);
    const sealed = sealSecret(secret, "user-1", RFC_SECRET);
    expect(sealed).not.toContain(RFC_SECRET);
    expect(openSecret(secret, "user-1", sealed)).toBe(RFC_SECRET);
    expect(openSecret(secret, "user-2", sealed)).toBeUndefined();
    expect(openSecret("t".repeat(40), "user-1", sealed)).toBeUndefined();
  });
});

describeDatabases([["SQLite"]])("recovery codes as typed", () => {
  it("drops spaces and hyphens, ignores case, reads Crockford's look-alikes as meant", () => {
    expect(normalizeRecoveryCode("  AB3DE-FGHJK ")).toBe("ab3defghjk");
    expect(normalizeRecoveryCode("ab3de fghjk")).toBe("ab3defghjk");
    expect(normalizeRecoveryCode("O1ILo")).toBe("01110");
  });
});

const PASSWORD = "Granite-Kettle-58";
const NEW_PASSWORD = "Copper-Lantern-91!";

describeDatabases([
  ["SQLite", async () => `sqlite:${join(tempDir(), "factors.db")}`],
  ["PostgreSQL", freshPostgres],
])("second factors on %s", (_name, database) => {
  let server: TestServer;
  let ip = 0;
  const db = () => server.app.db;
  const secret = () => server.config.sessionSecret;
  /** A browser of its own address (under every per-address limit). */
  const browser = () =>
    new Client(server.url, { "x-forwarded-for": `198.18.${(ip >> 8) % 256}.${++ip % 256}` }).start();

  beforeAll(async () => {
    server = await startServer({ databaseUrl: await database(), env: { TRUST_PROXY: "true" } });
    // Mail is only queued here: the tests read the outbox.
    await server.app.services.mail.stop();
  });
  afterAll(() => server?.close());

  const account = () =>
    createUser(db(), {
      email: `${randomUUID()}@example.com`,
      password: PASSWORD,
      firstName: "Ann",
      lastName: "Lee",
      countryCode: "DE",
    });

  /** An account with a confirmed authenticator app, written as Turn on + confirm leave it (for the rule tests). */
  async function withTotp(): Promise<{ user: UserRow; totp: string }> {
    const user = await account();
    return { user, totp: await withTotpFor(user) };
  }

  /** Gives the account a confirmed authenticator app; answers its secret. */
  async function withTotpFor(user: UserRow): Promise<string> {
    const totp = Secret.fromLatin1(randomUUID().slice(0, 20)).base32;
    const sealed = sealSecret(secret(), user.id, totp);
    await secondFactorsStore.putPendingTotp(db(), user.id, sealed, Date.now());
    await secondFactorsStore.confirmTotp(db(), user.id, sealed, Date.now());
    return totp;
  }

  const check = (user: UserRow, code: string, now: number, method: "totp" | "recovery_code" = "totp") =>
    checkCode(db(), { user, method, code, sessionSecret: secret() }, now);

  /** A six-digit code that is none of the codes valid around `now`. */
  function wrongCode(totp: string, now: number): string {
    const valid = new Set([-1, 0, 1].map((d) => totpCode(totp, now + d * PERIOD_MS)));
    for (let n = 0; ; n++) {
      const code = String(n).padStart(6, "0");
      if (!valid.has(code)) return code;
    }
  }

  const outbox = (userId: string, kind: string) =>
    db().selectFrom("outbox").selectAll().where("user_id", "=", userId).where("kind", "=", kind).execute();
  const auditCount = async (userId: string, event: string) =>
    (await db().selectFrom("audit").select("id").where("user_id", "=", userId).where("event", "=", event).execute())
      .length;

  describe("the code rules", () => {
    it("accepts a code once: the same code again, and the previous step's after a later one, are refused", async () => {
      const { user, totp } = await withTotp();
      const t0 = Date.now();
      expect(await check(user, totpCode(totp, t0), t0)).toEqual({ ok: true, method: "totp" });
      expect(await check(user, totpCode(totp, t0), t0)).toEqual({ ok: false, refusal: "second_factor_invalid" });
      const t1 = t0 + PERIOD_MS;
      expect((await check(user, totpCode(totp, t1), t1)).ok).toBe(true);
      // Still within the drift window at t1, but its step is not later than the last accepted one.
      expect(await check(user, totpCode(totp, t0), t1)).toEqual({ ok: false, refusal: "second_factor_invalid" });
    });

    it("accepts a phone clock one step off either way, not two", async () => {
      const { user, totp } = await withTotp();
      const now = Date.now();
      expect((await check(user, totpCode(totp, now - 2 * PERIOD_MS), now)).ok).toBe(false);
      expect((await check(user, totpCode(totp, now + 2 * PERIOD_MS), now)).ok).toBe(false);
      expect((await check(user, totpCode(totp, now - PERIOD_MS), now)).ok).toBe(true);
      expect((await check(user, totpCode(totp, now + PERIOD_MS), now)).ok).toBe(true);
    });

    it("counts a burst of wrong codes atomically: the account blocks exactly at its threshold", async () => {
      const { user, totp } = await withTotp();
      const now = Date.now();
      const burst = await Promise.all(Array.from({ length: 20 }, () => check(user, wrongCode(totp, now), now)));
      const refusals = burst.map((answer) => (answer.ok ? "ok" : answer.refusal));
      expect(refusals.filter((r) => r === "second_factor_invalid")).toHaveLength(LOCKOUT_THRESHOLD - 1);
      expect(refusals.filter((r) => r === "user_temporarily_blocked")).toHaveLength(20 - LOCKOUT_THRESHOLD + 1);
      expect(await auditCount(user.id, "lockout")).toBe(1);
      // Blocked: even the right code is refused unchecked, and the step it names stays unused.
      expect(await check(user, totpCode(totp, now), now)).toEqual({ ok: false, refusal: "user_temporarily_blocked" });
      expect((await secondFactorsStore.findTotp(db(), user.id))?.last_step).toBe(0);
      // The password's allowance is its own: the password still signs in (and the attempt owes the factor).
      const c = await browser();
      const login = await c.login(user.email, PASSWORD);
      expect(login.status).toBe(200);
      expect(login.json.next.url).toMatch(/^\/login\/second-factor/u);
    });

    it("caps wrong codes across the short blocks: after 100 in a row, even the right code waits", async () => {
      const { user, totp } = await withTotp();
      let now = Date.now();
      let checked = 0;
      // Five wrong codes a window, each window after the last block ended: what a patient guesser does.
      while (checked < SECOND_FACTOR_FAILURES_MAX) {
        for (let i = 0; i < LOCKOUT_THRESHOLD && checked < SECOND_FACTOR_FAILURES_MAX; i++, checked++) {
          expect((await check(user, wrongCode(totp, now), now)).ok).toBe(false);
        }
        now += LOCKOUT_WINDOW_MS + 1;
      }
      expect(await check(user, totpCode(totp, now), now)).toEqual({ ok: false, refusal: "user_temporarily_blocked" });
      expect(await auditCount(user.id, "lockout")).toBeGreaterThan(SECOND_FACTOR_FAILURES_MAX / LOCKOUT_THRESHOLD - 2);
      // Support's reset starts over: a new app, a right code.
      await resetFactors(db(), user, { brand: "default", origin: server.url }, now);
      const again = await withTotpFor(user);
      expect((await check(user, totpCode(again, now), now)).ok).toBe(true);
    });

    it("a right code starts the count across blocks again", async () => {
      const { user, totp } = await withTotp();
      let now = Date.now();
      for (let i = 0; i < LOCKOUT_THRESHOLD - 1; i++) await check(user, wrongCode(totp, now), now);
      now += PERIOD_MS;
      expect((await check(user, totpCode(totp, now), now)).ok).toBe(true);
      // Both counts are gone: the short one and the one across blocks.
      expect(
        await db()
          .selectFrom("login_throttle")
          .select("key")
          .where("account_key", "=", codeFailuresKey(user.id))
          .execute(),
      ).toEqual([]);
    });

    it("spends a recovery code once when two requests bring it at once", async () => {
      const user = await account();
      const codes = await newRecoveryCodes(db(), secret(), user.id);
      expect(codes).toHaveLength(RECOVERY_CODES_COUNT);
      expect(new Set(codes).size).toBe(RECOVERY_CODES_COUNT);
      for (const code of codes) expect(code).toMatch(/^[0-9a-hjkmnp-tv-z]{5}-[0-9a-hjkmnp-tv-z]{5}$/u);
      const stored = await db()
        .selectFrom("recovery_codes")
        .select("code_hash")
        .where("user_id", "=", user.id)
        .execute();
      expect(stored.map((row) => row.code_hash).join()).not.toContain(codes[0]?.replace("-", ""));
      const code = codes[0] as string;
      const spent = await Promise.all([
        spendRecoveryCode(db(), secret(), user.id, code),
        spendRecoveryCode(db(), secret(), user.id, code),
      ]);
      expect(spent.filter(Boolean)).toHaveLength(1);
      expect(
        await spendRecoveryCode(db(), secret(), user.id, (codes[1] as string).toUpperCase().replace("-", " ")),
      ).toBe(true);
      // Another account's code is nothing to this one.
      const other = await account();
      expect(await spendRecoveryCode(db(), secret(), other.id, codes[2] as string)).toBe(false);
      // Keyed by SESSION_SECRET: the table alone (a stolen backup) is no list of codes to search offline.
      const anotherSecret = "another-secret-of-enough-length-000000";
      expect(await spendRecoveryCode(db(), anotherSecret, user.id, codes[2] as string)).toBe(false);
      expect(await spendRecoveryCode(db(), secret(), user.id, codes[2] as string)).toBe(true);
    });
  });

  /** Signs in with the password, Turns on the authenticator app (confirmed now), and answers its secret and codes. */
  async function turnOnTotp() {
    const user = await account();
    const c = await browser();
    expect((await c.login(user.email, PASSWORD)).status).toBe(200);
    const started = await c.post("/api/account/totp");
    expect(started.status).toBe(200);
    const totp = started.json.secret as string;
    expect(started.json.uri).toContain(`secret=${totp}`);
    const confirmed = await c.post("/api/account/totp/confirm", { code: totpCode(totp, Date.now()) });
    expect(confirmed.status).toBe(200);
    return { user, c, totp, recoveryCodes: confirmed.json.recoveryCodes as string[] };
  }

  /** A code of the next step: within the drift window, and later than the step Turn on just used. */
  const nextCode = (totp: string) => totpCode(totp, Date.now() + PERIOD_MS);

  describe("turning the authenticator app on and off", () => {
    it("confirms with one code, makes the recovery codes once, mails the person, and refreshes the session", async () => {
      const { user, c, recoveryCodes } = await turnOnTotp();
      expect(recoveryCodes).toHaveLength(RECOVERY_CODES_COUNT);
      expect(await outbox(user.id, "second_factor_added")).toHaveLength(1);
      const security = await c.get("/api/account/security");
      expect(security.json).toMatchObject({ hasPassword: true, totp: true, recoveryCodesLeft: 10, passkeys: [] });
      expect(security.json.freshUntil).toBeGreaterThan(Date.now());
      const session = await db().selectFrom("sessions").select("amr").where("user_id", "=", user.id).executeTakeFirst();
      expect(session?.amr?.split(" ")).toEqual(expect.arrayContaining(["pwd", "otp", "mfa"]));
      expectErrorObject(await c.post("/api/account/totp"), 409, "totp_already_enabled");
    });

    it("confirms only the pending secret a code was checked against, never one a second Turn on put meanwhile", async () => {
      const user = await account();
      const seen = sealSecret(secret(), user.id, Secret.fromLatin1(randomUUID().slice(0, 20)).base32);
      const replacing = sealSecret(secret(), user.id, Secret.fromLatin1(randomUUID().slice(0, 20)).base32);
      await secondFactorsStore.putPendingTotp(db(), user.id, replacing, Date.now());
      expect(await secondFactorsStore.confirmTotp(db(), user.id, seen, Date.now())).toBe(false);
      expect((await secondFactorsStore.findTotp(db(), user.id))?.confirmed_at).toBeNull();
      expect(await secondFactorsStore.confirmTotp(db(), user.id, replacing, Date.now())).toBe(true);
    });

    it("refuses a wrong confirmation code and a confirmation without a pending secret", async () => {
      const user = await account();
      const c = await browser();
      await c.login(user.email, PASSWORD);
      expectErrorObject(await c.post("/api/account/totp/confirm", { code: "123456" }), 404, "not_found");
      const started = await c.post("/api/account/totp");
      const wrong = wrongCode(started.json.secret, Date.now());
      expectErrorObject(await c.post("/api/account/totp/confirm", { code: wrong }), 400, "second_factor_invalid");
      expect((await c.get("/api/account/security")).json.totp).toBe(false);
    });

    it("turning off the last factor takes the recovery codes and remembered browsers with it, and says so", async () => {
      const { user, c } = await turnOnTotp();
      await secondFactorsStore.rememberBrowser(db(), user.id, "d".repeat(22), Date.now() + 60_000);
      expect((await c.request("DELETE", "/api/account/totp")).status).toBe(200);
      const security = (await c.get("/api/account/security")).json;
      expect(security).toMatchObject({ totp: false, recoveryCodesLeft: 0 });
      expect(await secondFactorsStore.isRemembered(db(), user.id, "d".repeat(22), Date.now())).toBe(false);
      const [mail] = await outbox(user.id, "second_factor_removed");
      expect(mail?.text_body).toContain("authenticator app");
      expect(mail?.text_body).toContain("It was the last one");
      expectErrorObject(await c.post("/api/account/recovery-codes"), 400, "invalid_request");
    });

    it("makes a new set of recovery codes: the previous set stops working", async () => {
      const { user, c, recoveryCodes } = await turnOnTotp();
      const renewed = await c.post("/api/account/recovery-codes");
      expect(renewed.status).toBe(200);
      expect(renewed.json.recoveryCodes).toHaveLength(RECOVERY_CODES_COUNT);
      expect(await spendRecoveryCode(db(), secret(), user.id, recoveryCodes[0] as string)).toBe(false);
      expect(await spendRecoveryCode(db(), secret(), user.id, renewed.json.recoveryCodes[0])).toBe(true);
    });
  });

  describe("the second factor at sign-in", () => {
    it("a password sign-in owes the code first: no session until it is given", async () => {
      const { user, totp } = await turnOnTotp();
      const c = await browser();
      const login = await c.login(user.email, PASSWORD);
      expect(login.json.next).toEqual({ kind: "step", url: "/login/second-factor?second_factor=true" });
      expect((await c.get("/api/session")).status).toBe(204);
      const attempt = await c.get("/api/sign-in/attempt");
      expect(attempt.json).toMatchObject({
        owes: "second_factor",
        factors: { totp: true, passkeys: false, recoveryCodes: true },
      });
      expectErrorObject(await c.get("/api/account/security"), 401, "not_authenticated");
      const wrong = wrongCode(totp, Date.now());
      const refused = await c.post("/api/sign-in/second-factor", { method: "totp", code: wrong });
      expectErrorObject(refused, 400, "second_factor_invalid");
      const given = await c.post("/api/sign-in/second-factor", { method: "totp", code: nextCode(totp) });
      expect(given.status).toBe(200);
      expect(given.json.next.kind).toBe("landing");
      expect((await c.get("/api/session")).status).toBe(200);
      const session = await db().selectFrom("sessions").select("amr").where("user_id", "=", user.id).execute();
      expect(session.some((row) => row.amr?.split(" ").includes("mfa"))).toBe(true);
    });

    it("a trial-mode sign-in starts its trial only once the factor is given: a password alone starts nothing", async () => {
      const { user, totp } = await turnOnTotp();
      const c = await browser();
      const body = { email: user.email, password: PASSWORD, isTrial: true, productCode: "TRIAL-2FA" };
      const login = await c.post("/api/account/login", body);
      expect(login.json).toMatchObject({ RequiredPasswordUpdate: false, RequiredProfileUpdate: false });
      expect(login.json.next.url).toMatch(/^\/login\/second-factor/u);
      const trials = () => db().selectFrom("trials").select("product_code").where("user_id", "=", user.id).execute();
      expect(await trials()).toEqual([]);
      const given = await c.post("/api/sign-in/second-factor", { method: "totp", code: nextCode(totp) });
      expect(given.status).toBe(200);
      expect(await trials()).toEqual([{ product_code: "TRIAL-2FA" }]);
    });

    it("the second factor comes before a required password change, which the attempt owes next", async () => {
      const user = await createUser(db(), {
        email: `${randomUUID()}@example.com`,
        password: PASSWORD,
        firstName: "Ann",
        lastName: "Lee",
        countryCode: "DE",
        requirePasswordUpdate: true,
      });
      const codes = await newRecoveryCodes(db(), secret(), user.id);
      const totp = Secret.fromLatin1(randomUUID().slice(0, 20)).base32;
      const sealed = sealSecret(secret(), user.id, totp);
      await secondFactorsStore.putPendingTotp(db(), user.id, sealed, Date.now());
      await secondFactorsStore.confirmTotp(db(), user.id, sealed, Date.now());
      const c = await browser();
      expect((await c.login(user.email, PASSWORD)).json.next.url).toMatch(/^\/login\/second-factor/u);
      // The password step's call is not open to an attempt that still owes the second factor.
      const early = await c.post("/api/account/change_password", { oldPassword: PASSWORD, password: NEW_PASSWORD });
      expectErrorObject(early, 401, "not_authenticated");
      const given = await c.post("/api/sign-in/second-factor", { method: "recovery_code", code: codes[0] });
      expect(given.json.next.url).toMatch(/^\/account\/password-change/u);
      expect((await c.get("/api/session")).status).toBe(204);
      const changed = await c.post("/api/account/change_password", { oldPassword: PASSWORD, password: NEW_PASSWORD });
      expect(changed.status, changed.text).toBe(200);
      expect(changed.json.next.kind, changed.text).toBe("landing");
      expect((await c.get("/api/session")).status).toBe(200);
    });

    it("a recovery code works once, says how many are left, and mails the person", async () => {
      const { user, recoveryCodes } = await turnOnTotp();
      const c = await browser();
      await c.login(user.email, PASSWORD);
      const code = (recoveryCodes[0] as string).toUpperCase();
      const given = await c.post("/api/sign-in/second-factor", { method: "recovery_code", code });
      expect(given.status).toBe(200);
      expect(given.json.recoveryCodesLeft).toBe(RECOVERY_CODES_COUNT - 1);
      const [mail] = await outbox(user.id, "recovery_code_used");
      expect(mail?.text_body).toContain(`Recovery codes left: ${RECOVERY_CODES_COUNT - 1}`);
      const again = await browser();
      await again.login(user.email, PASSWORD);
      const reused = await again.post("/api/sign-in/second-factor", { method: "recovery_code", code });
      expectErrorObject(reused, 400, "second_factor_invalid");
    });

    it("a remembered browser skips the code, until a password change forgets it", async () => {
      const { user, totp, recoveryCodes } = await turnOnTotp();
      const c = await browser();
      await c.login(user.email, PASSWORD);
      const given = await c.post("/api/sign-in/second-factor", {
        method: "totp",
        code: nextCode(totp),
        remember: true,
      });
      expect(given.status).toBe(200);
      await c.post("/api/account/logout");

      const remembered = await c.login(user.email, PASSWORD);
      expect(remembered.json.next.kind).toBe("landing");
      expect((await c.get("/api/session")).status).toBe(200);
      // The sign-in renewed the device cookie with the same device id: still remembered the time after.
      await c.post("/api/account/logout");
      expect((await c.login(user.email, PASSWORD)).json.next.kind).toBe("landing");
      // Its session skipped the factor: no mfa in it, so it is not fresh for this account's sensitive changes.
      expect((await c.get("/api/account/security")).json.freshUntil).toBeNull();
      expectErrorObject(await c.request("DELETE", "/api/account/totp"), 403, "reauthentication_required");
      // Another browser is asked all the same.
      const other = await browser();
      expect((await other.login(user.email, PASSWORD)).json.next.kind).toBe("step");

      // Step-up with the password and a code, then the password change forgets every remembered browser.
      const reauth = await c.post("/api/account/reauthenticate", {
        password: PASSWORD,
        method: "recovery_code",
        code: recoveryCodes[0],
      });
      expect(reauth.status, reauth.text).toBe(200);
      const change = await c.post("/api/account/change_password", { oldPassword: PASSWORD, password: NEW_PASSWORD });
      expect(change.status, change.text).toBe(200);
      await c.post("/api/account/logout");
      expect((await c.login(user.email, NEW_PASSWORD)).json.next.kind).toBe("step");
    });
  });

  describe("step-up", () => {
    it("a sensitive call needs a proof within STEP_UP_MS; reauthenticate gives one", async () => {
      const user = await account();
      const c = await browser();
      await c.login(user.email, PASSWORD);
      // The sign-in was its proof; move it back past the limit.
      await db()
        .updateTable("sessions")
        .set({ fresh_at: Date.now() - STEP_UP_MS - 1 })
        .where("user_id", "=", user.id)
        .execute();
      expectErrorObject(await c.post("/api/account/totp"), 403, "reauthentication_required");
      expect((await c.get("/api/account/security")).json.freshUntil).toBeNull();
      const wrong = await c.post("/api/account/reauthenticate", { password: "not the password" });
      expectErrorObject(wrong, 400, "current_password_incorrect");
      expectErrorObject(await c.post("/api/account/reauthenticate", {}), 400, "invalid_request");
      const reauth = await c.post("/api/account/reauthenticate", { password: PASSWORD });
      expect(reauth.status).toBe(200);
      expect(reauth.json.freshUntil).toBeGreaterThan(Date.now() + STEP_UP_MS - 60_000);
      expect((await c.post("/api/account/totp")).status).toBe(200);
    });

    it("an account with a factor steps up with the password and its code, not the password alone", async () => {
      const { user, c, totp } = await turnOnTotp();
      await db()
        .updateTable("sessions")
        .set({ fresh_at: Date.now() - STEP_UP_MS - 1 })
        .where("user_id", "=", user.id)
        .execute();
      expectErrorObject(await c.post("/api/account/recovery-codes"), 403, "reauthentication_required");
      const alone = await c.post("/api/account/reauthenticate", { password: PASSWORD });
      expectErrorObject(alone, 400, "invalid_request");
      const both = await c.post("/api/account/reauthenticate", {
        password: PASSWORD,
        method: "totp",
        code: nextCode(totp),
      });
      expect(both.status).toBe(200);
      expect((await c.post("/api/account/recovery-codes")).status).toBe(200);
    });
  });

  it("an administrator's reset removes every factor and mails the person", async () => {
    const { user, c } = await turnOnTotp();
    await resetFactors(db(), user, { brand: "default", origin: server.url });
    expect((await c.get("/api/account/security")).json).toMatchObject({ totp: false, recoveryCodesLeft: 0 });
    expect(await outbox(user.id, "second_factors_reset")).toHaveLength(1);
    const again = await browser();
    expect((await again.login(user.email, PASSWORD)).json.next.kind).toBe("landing");
  });

  it("deleting an account deletes its factors", async () => {
    const { user } = await turnOnTotp();
    await secondFactorsStore.rememberBrowser(db(), user.id, "d".repeat(22), Date.now() + 60_000);
    const code = await issueCode(db(), user.id, "deletion", DELETION_TTL_MS);
    const site = { brand: "default", origin: server.url } as const;
    expect(await deleteAccount(db(), code, site)).toEqual({ ok: true });
    expect(await secondFactorsStore.findTotp(db(), user.id)).toBeUndefined();
    expect(await secondFactorsStore.recoveryCodesLeft(db(), user.id)).toBe(0);
    expect(await secondFactorsStore.isRemembered(db(), user.id, "d".repeat(22), Date.now())).toBe(false);
  });
});
