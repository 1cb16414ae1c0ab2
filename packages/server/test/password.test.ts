import { PASSWORD_RESET_TTL_MS } from "@gatehouse/contract";
import { describe, expect, it } from "vitest";
import { passwordCodeStatus, resetPassword } from "../src/accounts/recovery.ts";
import { createUser, disableUser, findUserByEmail } from "../src/accounts/users.ts";
import { runAdmin } from "../src/admin/cli.ts";
import { mailSite } from "../src/mail/links.ts";
import { usersStore } from "../src/store/users.ts";
import { Client, expectErrorObject, expectSameTiming, mailTo, type TestServer, useMailServer } from "./harness.ts";
import { linkIn } from "./smtp.ts";

const fx = useMailServer();
let ip = 0;
const client = () => new Client(fx.server.url, { "x-forwarded-for": `192.0.2.${(++ip % 250) + 1}` }).start();
const OLD = "Granite-Kettle-58";
const NEW = "Copper-Lantern-91!";

async function person(
  email: string,
  extra: Parameters<typeof createUser>[1] extends infer T ? Partial<T> : never = {},
) {
  return createUser(fx.server.app.db, {
    email,
    password: OLD,
    firstName: "Pat",
    lastName: "Lee",
    countryCode: "DE",
    ...extra,
  });
}

const mailsTo = (address: string) => fx.smtp.received.filter((m) => m.to.includes(address));
const nextMail = (address: string, count: number) => mailTo(fx, address, { nth: count });

describe("POST /api/account/recover", () => {
  it("answers a known and an unknown address with the same status and body, and mails only the known one", async () => {
    await person("known@example.com");
    const known = await (await client()).post("/api/account/recover", { email: "known@example.com" });
    const unknown = await (await client()).post("/api/account/recover", { email: "unknown@example.com" });
    expect([known.status, unknown.status]).toEqual([200, 200]);
    expect(known.text).toBe(unknown.text);
    const mail = await nextMail("known@example.com", 1);
    expect(linkIn(mail, "/account/password-reset").searchParams.get("code")).toMatch(/^[\w-]{43}$/u);
    expect(mailsTo("unknown@example.com")).toHaveLength(0);
  });

  it("takes the same time for a known and an unknown address (within noise)", async () => {
    // A fresh account each round, so every known address takes the real path (no per-address quota reached).
    const rounds = 16;
    for (let i = 0; i < rounds; i++) await person(`timing-${i}@example.com`);
    const addresses = (prefix: string) => Array.from({ length: rounds }, (_, i) => `${prefix}-${i}@example.com`);
    await expectSameTiming(
      async (email) => {
        const c = await client();
        return () => c.post("/api/account/recover", { email });
      },
      addresses("timing"),
      addresses("nobody"),
    );
  });

  it("sends a pending account a reset link whose new password activates it, and an invited one a set-up link", async () => {
    // Whoever registered the address chose the old password without proving the mailbox: activating the account
    // as it is would hand it to them; the owner's new password replaces theirs (pre-account takeover).
    await person("pending-r@example.com", { status: "pending" });
    await (await client()).post("/api/account/recover", { email: "pending-r@example.com" });
    const code = linkIn(await nextMail("pending-r@example.com", 1), "/account/password-reset").searchParams.get("code");
    expect((await (await client()).post("/api/account/reset_password", { code, password: NEW })).status).toBe(200);
    expect((await findUserByEmail(fx.server.app.db, "pending-r@example.com"))?.status).toBe("active");
    expectErrorObject(await (await client()).login("pending-r@example.com", OLD), 401, "invalid_authentication");
    expect((await (await client()).login("pending-r@example.com", NEW)).status).toBe(200);

    expect((await runAdmin(["user:invite", "--email", "invited-r@example.com"], envOf(fx.server))).code).toBe(0);
    await (await client()).post("/api/account/recover", { email: "invited-r@example.com" });
    const mail = await nextMail("invited-r@example.com", 2);
    expect(linkIn(mail, "/account/password-setup").searchParams.get("code")).toBeTruthy();
  });

  it("mails at most three recovery links an hour to one address, whoever asks, with the same answer", async () => {
    await person("bombed@example.com");
    for (let i = 0; i < 5; i++) {
      const answer = await (await client()).post("/api/account/recover", { email: "bombed@example.com" });
      expect(answer.status).toBe(200);
    }
    await nextMail("bombed@example.com", 3);
    // A pass of the worker after the third: the outbox holds nothing more for them.
    await fx.server.app.services.mail.runOnce();
    expect(mailsTo("bombed@example.com")).toHaveLength(3);
  });

  it("is limited per client address too", async () => {
    const c = await client();
    let last = await c.post("/api/account/recover", { email: "x0@example.com" });
    for (let i = 1; i <= 12 && last.status !== 429; i++)
      last = await c.post("/api/account/recover", { email: `x${i}@example.com` });
    expectErrorObject(last, 429, "rate_limited");
  });
});

describe("reset", () => {
  async function resetCode(email: string, mailNumber = 1) {
    await (await client()).post("/api/account/recover", { email });
    return linkIn(await nextMail(email, mailNumber), "/account/password-reset").searchParams.get("code") ?? "";
  }

  it("tells a code's state without using it", async () => {
    await person("status@example.com");
    const code = await resetCode("status@example.com");
    const c = await client();
    expect((await c.get(`/api/account/recover/${code}`)).json).toEqual({ status: "valid" });
    expect((await c.get(`/api/account/recover/${code}`)).json).toEqual({ status: "valid" });
    const invalid = (await c.get(`/api/account/recover/${"x".repeat(43)}`)).json;
    // An unusable code carries a reference for its page (spec §2 "with a reference").
    expect(invalid).toEqual({ status: "invalid", guid: expect.stringMatching(/^[0-9a-f-]{36}$/u) });
    expect(await passwordCodeStatus(fx.server.app.db, code, Date.now() + PASSWORD_RESET_TTL_MS + 1)).toBe("expired");
  });

  it("refuses weak passwords on the server", async () => {
    await person("weakreset@example.com");
    const code = await resetCode("weakreset@example.com");
    const c = await client();
    const rules = expectErrorObject(
      await c.post("/api/account/reset_password", { code, password: "alllowercase1!" }),
      400,
      "invalid_request",
    );
    expect(rules.fields).toEqual([{ field: "password", message: "validation.password.rules" }]);
    const long = expectErrorObject(
      await c.post("/api/account/reset_password", { code, password: `Aa1!${"x".repeat(61)}` }),
      400,
      "invalid_request",
    );
    expect(long.fields).toEqual([{ field: "password", message: "validation.password.registerMax" }]);
    // The code survives refused attempts.
    expect((await c.get(`/api/account/recover/${code}`)).json).toEqual({ status: "valid" });
  });

  it("sets the new password once, ends every session, lifts a block and mails a notice", async () => {
    await person("reset@example.com");
    const signedIn = await client();
    expect((await signedIn.login("reset@example.com", OLD)).status).toBe(200);
    for (let i = 0; i < 5; i++) await (await client()).login("reset@example.com", "wrong password");
    const code = await resetCode("reset@example.com");
    const c = await client();
    expect((await c.post("/api/account/reset_password", { code, password: NEW })).status).toBe(200);
    expectErrorObject(await c.post("/api/account/reset_password", { code, password: NEW }), 410, "code_used");
    expect((await signedIn.get("/api/session")).status).toBe(204);
    expectErrorObject(await (await client()).login("reset@example.com", OLD), 401, "invalid_authentication");
    expect((await (await client()).login("reset@example.com", NEW)).status).toBe(200);
    const notice = await nextMail("reset@example.com", 2);
    expect(notice.text).toContain("password of your Gatehouse account was just changed");
  });

  it("says an older reset link was replaced by a newer one, and only the newest works", async () => {
    await person("twolinks@example.com");
    const older = await resetCode("twolinks@example.com", 1);
    const newer = await resetCode("twolinks@example.com", 2);
    const c = await client();
    const status = (await c.get(`/api/account/recover/${older}`)).json;
    expect(status).toEqual({ status: "superseded", guid: expect.stringMatching(/^[0-9a-f-]{36}$/u) });
    const refused = expectErrorObject(
      await c.post("/api/account/reset_password", { code: older, password: NEW }),
      410,
      "code_superseded",
    );
    expect(refused.temporary).toBe(false);
    expect((await c.post("/api/account/reset_password", { code: newer, password: NEW })).status).toBe(200);
    // Once the newest is used, the older still tells the truth about itself, and the newest says used.
    expect((await c.get(`/api/account/recover/${older}`)).json.status).toBe("superseded");
    expect((await c.get(`/api/account/recover/${newer}`)).json.status).toBe("used");
  });

  it("refuses an expired code", async () => {
    await person("expired@example.com");
    const code = await resetCode("expired@example.com");
    expect(
      await resetPassword(
        fx.server.app.db,
        code,
        NEW,
        mailSite(fx.server.config, "default"),
        Date.now() + PASSWORD_RESET_TTL_MS + 1,
      ),
    ).toEqual({
      ok: false,
      refusal: "code_expired",
    });
  });
});

describe("set up (invited users)", () => {
  const answers = { marketingSource: "Event", platformOfInterest: "Revit", role: "Architect" };

  it("invites by CLI, checks the survey, sets the password, activates and signs in", async () => {
    expect(
      await runAdmin(["user:invite", "--email", "invitee@example.com", "--brand", "archviz"], envOf(fx.server)),
    ).toMatchObject({ code: 0 });
    const mail = await nextMail("invitee@example.com", 1);
    expect(mail.text).toContain("Enscape");
    const code = linkIn(mail, "/account/password-setup").searchParams.get("code") ?? "";
    const c = await client();
    expect((await c.get(`/api/account/recover/${code}`)).json).toEqual({ status: "valid", survey: true });
    // An invitation owes the survey (issue #25 made it optional only for an account adding a password).
    const unanswered = expectErrorObject(
      await c.post("/api/account/setup_password", { code, password: NEW }),
      400,
      "invalid_request",
    );
    expect(unanswered.fields).toEqual([{ field: "marketingInfo", message: "validation.required" }]);
    const missing = expectErrorObject(
      await c.post("/api/account/setup_password", {
        code,
        password: NEW,
        marketingInfo: {
          marketingSource: "Other",
          platformOfInterest: "",
          platformOfInterestOther: "x".repeat(300),
          role: "Wizard",
          phoneNumber: "1".repeat(40),
        },
      }),
      400,
      "invalid_request",
    );
    expect(missing.fields).toEqual(
      expect.arrayContaining([
        { field: "marketingInfo.marketingSourceOther", message: "validation.required" },
        { field: "marketingInfo.platformOfInterest", message: "validation.required" },
        { field: "marketingInfo.role", message: "validation.required" },
        // Too long for the survey: no words of their own, the generic text (the form shows the same).
        { field: "marketingInfo.platformOfInterestOther", message: "errors.invalid_request" },
        { field: "marketingInfo.phoneNumber", message: "errors.invalid_request" },
      ]),
    );
    const done = await c.post("/api/account/setup_password", {
      code,
      password: NEW,
      marketingInfo: {
        ...answers,
        marketingSource: "Other",
        marketingSourceOther: "  A podcast  ",
        phoneNumber: "+49 30 1234567",
      },
    });
    expect(done.status).toBe(200);
    // The invitation left the names empty: the sign-in owes the profile first (issue #24), then the portal.
    expect(done.json).toEqual({ next: { kind: "step", url: "/profile/edit?required_profile_update=true" } });
    const saved = await c.request("PUT", "/api/account/profile", {
      firstName: "In",
      lastName: "Vitee",
      countryCode: "DE",
    });
    expect(saved.json.next).toMatchObject({ kind: "landing" });
    expect((await c.get("/api/session")).json.Email).toBe("invitee@example.com");
    const user = await findUserByEmail(fx.server.app.db, "invitee@example.com");
    expect(user?.status).toBe("active");
    expect(JSON.parse(user?.marketing_info ?? "{}")).toMatchObject({
      marketingSource: "Other",
      marketingSourceOther: "A podcast",
      role: "Architect",
    });
    expectErrorObject(
      await c.post("/api/account/setup_password", { code, password: NEW, marketingInfo: answers }),
      410,
      "code_used",
    );
    expect((await (await client()).login("invitee@example.com", NEW)).status).toBe(200);
  });

  it("says an invitation's set-up link was replaced when recovery mailed a fresh one", async () => {
    expect(await runAdmin(["user:invite", "--email", "reinvite@example.com"], envOf(fx.server))).toMatchObject({
      code: 0,
    });
    const older = linkIn(await nextMail("reinvite@example.com", 1), "/account/password-setup").searchParams.get("code");
    await (await client()).post("/api/account/recover", { email: "reinvite@example.com" });
    const newer = linkIn(await nextMail("reinvite@example.com", 2), "/account/password-setup").searchParams.get("code");
    const c = await client();
    expect((await c.get(`/api/account/recover/${older}`)).json.status).toBe("superseded");
    expectErrorObject(
      await c.post("/api/account/setup_password", { code: older, password: NEW, marketingInfo: answers }),
      410,
      "code_superseded",
    );
    expect((await c.get(`/api/account/recover/${newer}`)).json.status).toBe("valid");
  });

  it("refuses a reset code for set-up and a set-up code for reset", async () => {
    await person("purpose@example.com");
    await (await client()).post("/api/account/recover", { email: "purpose@example.com" });
    const code = linkIn(await nextMail("purpose@example.com", 1), "/account/password-reset").searchParams.get("code");
    expectErrorObject(
      await (await client()).post("/api/account/setup_password", { code, password: NEW, marketingInfo: answers }),
      404,
      "code_invalid",
    );
  });
});

describe("POST /api/account/change_password", () => {
  it("needs a session", async () => {
    expectErrorObject(
      await (await client()).post("/api/account/change_password", { oldPassword: OLD, password: NEW }),
      401,
      "not_authenticated",
    );
  });

  it("puts a wrong current password on the old-password field, and counts it toward the block", async () => {
    await person("changer@example.com");
    const c = await client();
    await c.login("changer@example.com", OLD);
    const wrong = expectErrorObject(
      await c.post("/api/account/change_password", { oldPassword: "not it at all", password: NEW }),
      400,
      "current_password_incorrect",
    );
    expect(wrong.fields).toEqual([{ field: "oldPassword", message: "errors.current_password_incorrect" }]);
    for (let i = 0; i < 3; i++)
      await c.post("/api/account/change_password", { oldPassword: "not it at all", password: NEW });
    expectErrorObject(
      await c.post("/api/account/change_password", { oldPassword: "not it at all", password: NEW }),
      429,
      "user_temporarily_blocked",
    );
    // The block is this browser's: it signed in, so it spends its own allowance (docs/decisions.md).
    expectErrorObject(await c.login("changer@example.com", OLD), 429, "user_temporarily_blocked");
  });

  it("changes the password, clears RequiredPasswordUpdate, keeps this session and ends the others", async () => {
    const user = await person("mover@example.com");
    await usersStore.update(fx.server.app.db, user.id, { required_password_update: 1 });
    const other = await client();
    await other.login("mover@example.com", OLD);
    const c = await client();
    expect((await c.login("mover@example.com", OLD)).json.RequiredPasswordUpdate).toBe(true);
    expectErrorObject(
      await c.post("/api/account/change_password", { oldPassword: OLD, password: "short" }),
      400,
      "invalid_request",
    );
    expect((await c.post("/api/account/change_password", { oldPassword: OLD, password: NEW })).status).toBe(200);
    expect((await c.get("/api/session")).status).toBe(200);
    expect((await other.get("/api/session")).status).toBe(204);
    expect((await findUserByEmail(fx.server.app.db, "mover@example.com"))?.required_password_update).toBe(0);
    expect((await nextMail("mover@example.com", 1)).text).toContain("was just changed");
  });

  it("refuses an account that has no password to change", async () => {
    const user = await person("sso@example.com");
    const c = await client();
    await c.login("sso@example.com", OLD);
    await usersStore.update(fx.server.app.db, user.id, { password_allowed: 0 });
    expectErrorObject(
      await c.post("/api/account/change_password", { oldPassword: OLD, password: NEW }),
      403,
      "password_not_allowed",
    );
  });

  it("a disabled account gets no recovery mail", async () => {
    const user = await person("off-r@example.com");
    await disableUser(fx.server.app.db, user);
    await (await client()).post("/api/account/recover", { email: "off-r@example.com" });
    await fx.server.app.services.mail.runOnce();
    expect(mailsTo("off-r@example.com")).toHaveLength(0);
  });
});

function envOf(s: TestServer) {
  return {
    DATABASE_URL: s.config.databaseUrl,
    SESSION_SECRET: "test-secret-that-is-long-enough-123456",
    NODE_ENV: "test",
  };
}
