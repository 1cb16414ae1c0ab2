import { SECURITY_PAGE_SIZE } from "@gatehouse/contract";
import { ActivityAnswer } from "@gatehouse/contract/security";
import { expect, it } from "vitest";
import { createUser } from "../src/accounts/users.ts";
import { type AuditEvent, audit } from "../src/audit/audit.ts";
import { totpCode } from "../src/factors/totp.ts";
import { Client, describeDatabases, expectErrorObject, freshPostgres, useMailServer } from "./harness.ts";

const PASSWORD = "Granite-Kettle-58";
const NEW_PASSWORD = "Quartz-Lantern-91";
const FIREFOX_WINDOWS = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0";
const ENTRY_KEYS = ["app", "at", "country", "device", "factor", "kind", "method", "provider"];

/**
 * Issue #27, "What happened": GET /api/account/activity lists the signed-in person's own security events from the
 * audit trail, newest first, in words (device, country, method, factor), never an id, address or raw detail, and
 * pages through them with a cursor that skips and repeats nothing.
 */
describeDatabases([
  ["SQLite", async () => undefined],
  ["PostgreSQL", freshPostgres],
])("the activity list on %s", (_name, database) => {
  const fx = useMailServer(database);
  let ip = 0;
  /** A browser behind the trusted proxy, which says where the visitor is (COUNTRY_HEADER). */
  const browser = (country = "DE") =>
    new Client(fx.server.url, {
      "x-forwarded-for": `198.51.100.${(++ip % 250) + 1}`,
      "user-agent": FIREFOX_WINDOWS,
      "cf-ipcountry": country,
    }).start();
  /** An account with a complete profile: a sign-in owes no step. */
  const person = (email: string) =>
    createUser(fx.server.app.db, { email, password: PASSWORD, firstName: "Ann", lastName: "Lee", countryCode: "DE" });
  const activity = async (c: Client, cursor?: string) => {
    const answer = await c.get(`/api/account/activity${cursor === undefined ? "" : `?cursor=${cursor}`}`);
    expect(answer.status, answer.text).toBe(200);
    return ActivityAnswer.parse(answer.json);
  };

  it("shows a sign-in with its device and country, a refused one, a password change and a factor added", async () => {
    const user = await person("ann.activity@example.com");
    const c = await browser("DE");
    expect((await c.login(user.email, "Wrong-Password-00")).status).toBe(401);
    expect((await c.login(user.email, PASSWORD)).status).toBe(200);
    const changed = await c.post("/api/account/change_password", { oldPassword: PASSWORD, password: NEW_PASSWORD });
    expect(changed.status, changed.text).toBe(200);
    const started = await c.post("/api/account/totp");
    expect(started.status, started.text).toBe(200);
    const confirmed = await c.post("/api/account/totp/confirm", { code: totpCode(started.json.secret, Date.now()) });
    expect(confirmed.status, confirmed.text).toBe(200);

    const { events, nextCursor } = await activity(c);
    expect(nextCursor).toBeNull();
    // The factor and its first recovery codes are recorded in one millisecond: either order is newest first.
    expect(
      events
        .slice(0, 2)
        .map((event) => event.kind)
        .sort(),
    ).toEqual(["recovery_codes_created", "second_factor_added"]);
    expect(events.slice(2).map((event) => event.kind)).toEqual(["password_changed", "sign_in", "sign_in_failed"]);
    const firefox = { browser: "Firefox 133", os: expect.stringMatching(/^Windows/u) };
    const added = events.find((event) => event.kind === "second_factor_added");
    const [, , passwordChanged, signedIn, refused] = events;
    expect(signedIn).toEqual({
      at: expect.any(Number),
      kind: "sign_in",
      device: firefox,
      country: "DE",
      method: "password",
      provider: null,
      factor: null,
      app: null,
    });
    expect(refused).toMatchObject({ kind: "sign_in_failed", device: firefox, country: "DE", method: "password" });
    expect(passwordChanged).toMatchObject({ kind: "password_changed", device: firefox, country: "DE", method: null });
    expect(added).toMatchObject({ kind: "second_factor_added", factor: "totp", device: firefox });
    // Newest first.
    expect(events.map((event) => event.at)).toEqual([...events.map((event) => event.at)].sort((a, b) => b - a));
  });

  it("lists nothing another person did, nothing of kinds it does not list, and no id, address or raw detail", async () => {
    const ann = await person("ann.own@example.com");
    const bob = await person("bob.other@example.com");
    const mine = await browser("FR");
    expect((await mine.login(ann.email, PASSWORD)).status).toBe(200);
    // Bob signs in, fails a sign-in, and an event of Bob's names Ann's address in its detail: none of it is Ann's.
    const his = await browser("US");
    expect((await his.login(bob.email, "Wrong-Password-00")).status).toBe(401);
    expect((await his.login(bob.email, PASSWORD)).status).toBe(200);
    // Kinds the page does not list (the profile's names, an admin's own record) stay out, even under Ann's id.
    await audit(fx.server.app.db, "profile_updated", { userId: ann.id, detail: "names" });
    await audit(fx.server.app.db, "admin", { userId: ann.id, detail: "user:unlock", userAgent: "admin-cli" });
    await audit(fx.server.app.db, "second_factor_added", { userId: ann.id, detail: "passkey: Ann's MacBook" });

    const answer = await mine.get("/api/account/activity");
    const { events } = ActivityAnswer.parse(answer.json);
    expect(events.map((event) => event.kind)).toEqual(["second_factor_added", "sign_in"]);
    // The answer as sent, before the contract's parse would drop anything undeclared.
    for (const event of answer.json.events) expect(Object.keys(event).sort()).toEqual(ENTRY_KEYS);
    expect(events[0]).toMatchObject({ factor: "passkey", device: { browser: null, os: null }, country: null });
    const rows = await fx.server.app.db.selectFrom("audit").selectAll().where("user_id", "=", ann.id).execute();
    for (const row of rows) {
      expect(answer.text).not.toContain(row.id);
      if (row.ip) expect(answer.text).not.toContain(row.ip);
    }
    for (const leak of [ann.id, bob.id, ann.email, "MacBook", "user:unlock", "198.51.100", "Mozilla"])
      expect(answer.text).not.toContain(leak);
  });

  it("names the provider, the app and the factor in words, from the stored detail it never returns", async () => {
    const user = await person("ann.words@example.com");
    const db = fx.server.app.db;
    const at = Date.now() - 60_000;
    const events: [AuditEvent, string][] = [
      ["sign_in", "social (google)"],
      ["sign_in_failed", "social: user_disabled"],
      ["identity_linked", "google (new account)"],
      ["app_granted" as AuditEvent, "example-app"],
      ["app_removed" as AuditEvent, "a-client-no-longer-configured"],
      ["second_factor_removed", "passkey"],
    ];
    for (const [i, [event, detail]] of events.entries()) await audit(db, event, { userId: user.id, detail }, at - i);
    const c = await browser();
    expect((await c.login(user.email, PASSWORD)).status).toBe(200);
    const answer = await c.get("/api/account/activity");
    const listed = ActivityAnswer.parse(answer.json).events.slice(1);
    const words = (kind: string) => listed.find((event) => event.kind === kind);
    expect(words("sign_in")).toMatchObject({ method: "social", provider: "Google" });
    expect(words("sign_in_failed")).toMatchObject({ method: "social", provider: null });
    expect(words("identity_linked")).toMatchObject({ provider: "Google", method: null });
    expect(words("app_granted")).toMatchObject({ app: "Example App" });
    expect(words("app_removed")).toMatchObject({ app: null });
    expect(words("second_factor_removed")).toMatchObject({ factor: "passkey" });
    for (const raw of ["(google)", "user_disabled", "new account", "example-app", "a-client-no-longer"])
      expect(answer.text).not.toContain(raw);
  });

  it(`pages through 45 events newest first, ${SECURITY_PAGE_SIZE} at a time, without a gap or a repeat`, async () => {
    const user = await person("ann.pages@example.com");
    const db = fx.server.app.db;
    const base = Date.now() - 3_600_000;
    // Three events in each millisecond: the cursor's (at, id) order must still cut between them exactly.
    const kinds: AuditEvent[] = ["password_changed", "password_reset", "recovery_codes_created"];
    for (let i = 0; i < 45; i++)
      await audit(db, kinds[i % 3] as AuditEvent, { userId: user.id }, base + Math.floor(i / 3));
    const c = await browser();
    expect((await c.login(user.email, PASSWORD)).status).toBe(200);

    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: string | undefined;
    do {
      const page = await activity(c, cursor);
      sizes.push(page.events.length);
      seen.push(...page.events.map((event) => `${event.at} ${event.kind}`));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    // 45 events and the sign-in.
    expect(sizes).toEqual([20, 20, 6]);
    expect(new Set(seen).size).toBe(46);
    const expected = Array.from({ length: 45 }, (_, i) => ({ at: base + Math.floor(i / 3), kind: kinds[i % 3] }));
    expect(seen.slice(1).sort()).toEqual(expected.map((event) => `${event.at} ${event.kind}`).sort());
    const times = seen.map((entry) => Number(entry.split(" ")[0]));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it("refuses a cursor that is not one it gave with 400 invalid_request, and answers 401 without a session", async () => {
    const user = await person("ann.cursor@example.com");
    const c = await browser();
    expect((await c.login(user.email, PASSWORD)).status).toBe(200);
    const forged = [
      "nope",
      Buffer.from("12.not-a-uuid").toString("base64url"),
      Buffer.from("1.2.3").toString("base64url"),
      Buffer.from(`99999999999999999.${crypto.randomUUID()}`).toString("base64url"),
      "%00",
    ];
    for (const cursor of forged)
      expectErrorObject(await c.get(`/api/account/activity?cursor=${cursor}`), 400, "invalid_request");
    expectErrorObject(await c.get(`/api/account/activity?cursor=${"a".repeat(300)}`), 400, "invalid_request");
    const anonymous = await browser();
    expectErrorObject(await anonymous.get("/api/account/activity"), 401, "not_authenticated");
  });
});
