import { ProfileAnswer } from "@gatehouse/contract";
import { sql } from "kysely";
import { expect, it } from "vitest";
import { createUser, findUserByEmail } from "../src/accounts/users.ts";
import { runAdmin } from "../src/admin/cli.ts";
import type { Db } from "../src/store/db.ts";
import { externalIdentitiesStore } from "../src/store/external-identities.ts";
import { usersStore } from "../src/store/users.ts";
import { Client, describeDatabases, expectErrorObject, freshPostgres, mailTo, useMailServer } from "./harness.ts";
import { linkIn } from "./smtp.ts";

const PASSWORD = "Granite-Kettle-58";

/** Every column of every table, as text: the place a deleted user's traces would hide. */
async function everyValue(db: Db): Promise<string[]> {
  const tables = [
    "users",
    "sessions",
    "login_throttle",
    "recovery_quota",
    "codes",
    "outbox",
    "captchas",
    "spent_tokens",
    "audit",
    "external_identities",
  ];
  const values: string[] = [];
  for (const table of tables) {
    const rows = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db);
    for (const row of rows.rows) for (const value of Object.values(row)) if (value !== null) values.push(String(value));
  }
  return values;
}

describeDatabases([
  ["SQLite", async () => undefined],
  ["PostgreSQL", freshPostgres],
])("profile, deletion and audit on %s", (_name, database) => {
  const fx = useMailServer(database);
  let ip = 0;
  const client = () =>
    new Client(fx.server.url, {
      "x-forwarded-for": `192.0.2.${(++ip % 250) + 1}`,
      "user-agent": "profile-test",
    }).start();
  const signedIn = async (email: string) => {
    const c = await client();
    expect((await c.login(email, PASSWORD)).status).toBe(200);
    return c;
  };

  it("answers the profile, and 401 without a session", async () => {
    await createUser(fx.server.app.db, {
      email: "prof@example.com",
      password: PASSWORD,
      firstName: "Ann",
      lastName: "Lee",
      countryCode: "DE",
    });
    expectErrorObject(await (await client()).get("/api/account/profile"), 401, "not_authenticated");
    const c = await signedIn("prof@example.com");
    expect(ProfileAnswer.parse((await c.get("/api/account/profile")).json)).toEqual({
      email: "prof@example.com",
      firstName: "Ann",
      lastName: "Lee",
      countryCode: "DE",
      customerNumber: "",
      passwordAllowed: true,
    });
  });

  it("updates names and country, ignores the read-only fields, and clears RequiredProfileUpdate", async () => {
    const user = await createUser(fx.server.app.db, { email: "upd@example.com", password: PASSWORD });
    await usersStore.update(fx.server.app.db, user.id, { customer_number: "C-1001" });
    const c = await signedIn("upd@example.com");
    const answer = await c.request("PUT", "/api/account/profile", {
      email: "hijack@example.com",
      firstName: "  Ann   Marie ",
      lastName: "Lee",
      countryCode: "fr",
      customerNumber: "X-9",
      passwordAllowed: false,
    });
    expect(answer.status).toBe(200);
    const after = await findUserByEmail(fx.server.app.db, "upd@example.com");
    expect(after).toMatchObject({
      first_name: "Ann Marie",
      country_code: "FR",
      customer_number: "C-1001",
      required_profile_update: 0,
      password_allowed: 1,
    });
    expect((await c.get("/api/account/profile")).json.email).toBe("upd@example.com");
  });

  it("enforces the spec §5 rules and a real country", async () => {
    const c = await signedIn("prof@example.com");
    const bad = expectErrorObject(
      await c.request("PUT", "/api/account/profile", { firstName: "a".repeat(73), lastName: "", countryCode: "DE" }),
      400,
      "invalid_request",
    );
    expect(bad.fields).toEqual(
      expect.arrayContaining([
        { field: "firstName", message: "validation.firstName.max" },
        { field: "lastName", message: "validation.lastName.required" },
      ]),
    );
    expectErrorObject(
      await c.request("PUT", "/api/account/profile", { firstName: "A", lastName: "B", countryCode: "XQ" }),
      400,
      "invalid_request",
    );
    expectErrorObject(
      await (await client()).request("PUT", "/api/account/profile", {
        firstName: "A",
        lastName: "B",
        countryCode: "DE",
      }),
      401,
      "not_authenticated",
    );
  });

  it("asks the password before mailing the deletion link, and counts wrong ones toward the block", async () => {
    await createUser(fx.server.app.db, {
      email: "del-pw@example.com",
      password: PASSWORD,
      firstName: "D",
      lastName: "P",
      countryCode: "DE",
    });
    const c = await signedIn("del-pw@example.com");
    expect(expectErrorObject(await c.post("/api/account/delete/request", {}), 400, "invalid_request").fields).toEqual([
      { field: "password", message: "validation.password.required" },
    ]);
    expect(
      expectErrorObject(
        await c.post("/api/account/delete/request", { password: "nope nope" }),
        400,
        "current_password_incorrect",
      ).fields,
    ).toEqual([{ field: "password", message: "errors.current_password_incorrect" }]);
    expectErrorObject(
      await (await client()).post("/api/account/delete/request", { password: PASSWORD }),
      401,
      "not_authenticated",
    );
  });

  it("says an older deletion link was replaced by a newer one", async () => {
    await createUser(fx.server.app.db, {
      email: "twice-delete@example.com",
      password: PASSWORD,
      firstName: "Two",
      lastName: "Links",
      countryCode: "DE",
    });
    const c = await signedIn("twice-delete@example.com");
    const codes: string[] = [];
    for (let i = 1; i <= 2; i++) {
      expect((await c.post("/api/account/delete/request", { password: PASSWORD })).status).toBe(200);
      const mail = await mailTo(fx, "twice-delete@example.com", { nth: i });
      codes.push(linkIn(mail, "/account/delete").searchParams.get("code") ?? "");
    }
    expectErrorObject(
      await (await client()).post("/api/account/delete", { deletionCode: codes[0] }),
      410,
      "code_superseded",
    );
    expect((await (await client()).post("/api/account/delete", { deletionCode: codes[1] })).status).toBe(200);
  });

  it("deletes the account by the mailed code and leaves no trace but an anonymous audit record", async () => {
    const user = await createUser(fx.server.app.db, {
      email: "gone@example.com",
      password: PASSWORD,
      firstName: "Gone",
      lastName: "Soon",
      countryCode: "DE",
    });
    const other = await signedIn("gone@example.com");
    const c = await signedIn("gone@example.com");
    // An identity linked at a provider, as social and corporate sign-in will link them, goes with the account.
    const gone = await findUserByEmail(fx.server.app.db, "gone@example.com");
    await externalIdentitiesStore.insert(fx.server.app.db, {
      provider: "google",
      subject: "gone-subject",
      user_id: gone?.id ?? "",
      email: "gone@example.com",
      linked_at: Date.now(),
    });
    await (await client()).login("gone@example.com", "a wrong password");
    await c.request("PUT", "/api/account/profile", { firstName: "Gone", lastName: "Soon", countryCode: "AT" });
    expect((await c.post("/api/account/delete/request", { password: PASSWORD })).status).toBe(200);
    await fx.server.app.services.mail.runOnce();
    // Issue #27: the second browser's sign-in was mailed about first; the deletion link is in the mail after it.
    const deletionMail = () =>
      fx.smtp.waitFor("gone@example.com", { having: (m) => m.text.includes("/account/delete?") });
    const code = linkIn(await deletionMail(), "/account/delete").searchParams.get("code") ?? "";

    // Issue #25: the link's state is told without using it, before and after the deletion.
    const status = async (link: string) => (await (await client()).get(`/api/account/delete/${link}`)).json;
    expect(await status(code)).toEqual({ status: "valid" });
    const deleted = await (await client()).post("/api/account/delete", { deletionCode: code });
    expect(deleted.status).toBe(200);
    expectErrorObject(await (await client()).post("/api/account/delete", { deletionCode: code }), 404, "code_invalid");
    expect(await status(code)).toEqual({ status: "deleted" });
    expect(await status("x".repeat(43))).toMatchObject({ status: "invalid", guid: expect.any(String) });
    expect((await other.get("/api/session")).status).toBe(204);
    // Sign-in now fails exactly as for an unknown address.
    const answer = expectErrorObject(
      await (await client()).login("gone@example.com", PASSWORD),
      401,
      "invalid_authentication",
    );
    expect(answer.message).toBe("Incorrect email or password.");

    // The farewell mail is delivered, and then the outbox forgets it too.
    await mailTo(fx, "gone@example.com", { having: (m) => m.text.includes("were deleted") });
    expect(fx.smtp.received.some((m) => m.to.includes("gone@example.com") && m.text.includes("were deleted"))).toBe(
      true,
    );

    const values = await everyValue(fx.server.app.db);
    expect(values.filter((v) => v.includes(user.id))).toEqual([]);
    expect(values.filter((v) => v.toLowerCase().includes("gone@example.com"))).toEqual([]);
    const events = await fx.server.app.db
      .selectFrom("audit")
      .selectAll()
      .where("event", "=", "account_deleted")
      .execute();
    expect(events.length).toBeGreaterThanOrEqual(1);
    expect(events.every((e) => e.user_id === null && e.ip === null && e.user_agent === null)).toBe(true);
  });

  it("records sign-ins, failures, lockouts, password and profile changes, deletion and admin actions", async () => {
    await createUser(fx.server.app.db, {
      email: "audited@example.com",
      password: PASSWORD,
      firstName: "Au",
      lastName: "Dit",
      countryCode: "DE",
    });
    const c = await signedIn("audited@example.com");
    for (let i = 0; i < 5; i++) await (await client()).login("audited@example.com", "wrong password");
    const env = {
      DATABASE_URL: fx.server.config.databaseUrl,
      SESSION_SECRET: "test-secret-that-is-long-enough-123456",
      NODE_ENV: "test",
    };
    expect((await runAdmin(["user:unlock", "--email", "audited@example.com"], env)).code).toBe(0);
    await c.request("PUT", "/api/account/profile", { firstName: "Au", lastName: "Dit", countryCode: "IT" });
    await c.post("/api/account/change_password", { oldPassword: PASSWORD, password: "Copper-Lantern-91!" });
    await c.post("/api/account/delete/request", { password: "Copper-Lantern-91!" });
    const listed = await runAdmin(["audit", "--email", "audited@example.com"], env);
    expect(listed.code).toBe(0);
    for (const event of [
      "sign_in ",
      "sign_in_failed",
      "lockout",
      "unlock",
      "profile_updated",
      "password_changed",
      "deletion_requested",
    ]) {
      expect(listed.out, event).toContain(event);
    }
    expect(listed.out).toContain("profile-test");
    expect(listed.out).toMatch(/192\.0\.2\.\d+/u);
    expect((await runAdmin(["audit"], env)).out).toContain("user:unlock");
  });
});
