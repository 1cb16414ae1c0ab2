import { LOCKOUT_THRESHOLD, LOCKOUT_WINDOW_MS, LoginAnswer } from "@gatehouse/contract";
import { hash } from "@node-rs/argon2";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { needsRehash } from "../src/accounts/passwords.ts";
import { signInWithPassword } from "../src/accounts/sign-in.ts";
import { createUser, disableUser, findUserByEmail, unlockUser } from "../src/accounts/users.ts";
import { usersStore } from "../src/store/users.ts";
import { Client, expectErrorObject, startServer, type TestServer } from "./harness.ts";
import { corporateOnlyFile } from "./idps.ts";

let server: TestServer;
const PASSWORD = "correct horse";
let ip = 0;
/** Each test signs in from its own client address, so the per-address limit only bites where it is tested. */
const client = () => new Client(server.url, { "x-forwarded-for": `203.0.113.${++ip}` }).start();

beforeAll(async () => {
  server = await startServer({ env: { TRUST_PROXY: "true" } });
  const db = server.app.db;
  await createUser(db, {
    email: "ann@example.com",
    password: PASSWORD,
    firstName: "Ann",
    lastName: "Lee",
    countryCode: "DE",
  });
  await createUser(db, {
    email: "pending@example.com",
    password: PASSWORD,
    firstName: "Pat",
    lastName: "Ng",
    countryCode: "FR",
    status: "pending",
  });
  const disabled = await createUser(db, {
    email: "off@example.com",
    password: PASSWORD,
    firstName: "Off",
    lastName: "Line",
    countryCode: "IT",
  });
  await disableUser(db, disabled);
  await createUser(db, { email: "noprofile@example.com", password: PASSWORD });
});
afterAll(() => server.close());

async function existing(email: string) {
  const user = await findUserByEmail(server.app.db, email);
  if (!user) throw new Error(`no user ${email}`);
  return user;
}

describe("POST /api/account/login", () => {
  it("signs in and answers the spec's flags", async () => {
    const c = await client();
    const answer = await c.login("ann@example.com", PASSWORD);
    expect(answer.status).toBe(200);
    expect(LoginAnswer.parse(answer.json)).toEqual({
      RequiredPasswordUpdate: false,
      RequiredProfileUpdate: false,
      next: { kind: "landing", url: "/profile/edit" },
    });
    expect((await c.get("/api/session")).json.Email).toBe("ann@example.com");
  });

  it("matches the address case-insensitively and ignores surrounding spaces", async () => {
    expect((await (await client()).login("  ANN@Example.COM ", PASSWORD)).status).toBe(200);
  });

  it("says RequiredProfileUpdate for an account without names", async () => {
    const answer = await (await client()).login("noprofile@example.com", PASSWORD);
    expect(answer.json).toEqual({
      RequiredPasswordUpdate: false,
      RequiredProfileUpdate: true,
      next: { kind: "step", url: "/profile/edit?required_profile_update=true" },
    });
  });

  it("says RequiredPasswordUpdate when the account must choose a new password", async () => {
    const user = await findUserByEmail(server.app.db, "noprofile@example.com");
    await usersStore.update(server.app.db, user?.id ?? "", { required_password_update: 1 });
    const answer = await (await client()).login("noprofile@example.com", PASSWORD);
    expect(answer.json.RequiredPasswordUpdate).toBe(true);
    await usersStore.update(server.app.db, user?.id ?? "", { required_password_update: 0 });
  });

  it("answers a wrong password and an unknown address alike (ASVS 6.3.8)", async () => {
    const wrong = expectErrorObject(
      await (await client()).login("ann@example.com", "wrong password"),
      401,
      "invalid_authentication",
    );
    const unknown = expectErrorObject(
      await (await client()).login("nobody@example.com", "wrong password"),
      401,
      "invalid_authentication",
    );
    expect(wrong.message).toBe("Incorrect email or password.");
    const { guid: _a, error_guid: _b, ...wrongRest } = wrong;
    const { guid: _c, error_guid: _d, ...unknownRest } = unknown;
    expect(unknownRest).toEqual(wrongRest);
    expect(wrong.guid).not.toBe(unknown.guid);
  });

  it("takes as long for an unknown address as for a wrong password (argon2 against a dummy hash)", async () => {
    const time = async (email: string) => {
      const c = await client();
      const start = performance.now();
      await c.login(email, "wrong password");
      return performance.now() - start;
    };
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 4; i++) {
      // Separate addresses each round so the throttle never blocks this measurement.
      known.push(await time(`ann@example.com`));
      unknown.push(await time(`nobody-${i}@example.com`));
      await unlockUser(server.app.db, await existing("ann@example.com"));
    }
    const ratio = median(unknown) / median(known);
    expect(ratio).toBeGreaterThan(0.5);
    expect(ratio).toBeLessThan(2);
  });

  it("tells a pending account it is not active, but only with the right password", async () => {
    const right = expectErrorObject(
      await (await client()).login("pending@example.com", PASSWORD),
      403,
      "user_not_active",
    );
    expect(right.message).toContain("not active");
    expectErrorObject(
      await (await client()).login("pending@example.com", "wrong password"),
      401,
      "invalid_authentication",
    );
  });

  it("tells a disabled account so, but only with the right password", async () => {
    const right = expectErrorObject(await (await client()).login("off@example.com", PASSWORD), 403, "user_disabled");
    expect(right.message).toBe("Your user has been disabled in our system.");
    expectErrorObject(await (await client()).login("off@example.com", "wrong password"), 401, "invalid_authentication");
  });

  it("does not open a session on failure", async () => {
    const c = await client();
    await c.login("pending@example.com", PASSWORD);
    expect((await c.get("/api/session")).status).toBe(204);
  });

  it("validates the payload with the contract's messages", async () => {
    const answer = expectErrorObject(
      await (await client()).post("/api/account/login", { email: " ", password: "123" }),
      400,
      "invalid_request",
    );
    expect(answer.fields).toEqual(
      expect.arrayContaining([
        { field: "email", message: "validation.loginEmail.required" },
        { field: "password", message: "validation.password.loginMin" },
      ]),
    );
  });

  it("answers broken and odd requests with 4xx error objects, never 5xx", async () => {
    const c = await client();
    expectErrorObject(await c.request("POST", "/api/account/login", "{not json"), 400, "invalid_request");
    expectErrorObject(
      await c.request("POST", "/api/account/login", "email=a", { "content-type": "text/plain" }),
      415,
      "unsupported_media_type",
    );
    expectErrorObject(
      await c.request("POST", "/api/account/login", JSON.stringify({ email: "a".repeat(70_000) })),
      413,
      "payload_too_large",
    );
    expectErrorObject(await c.request("POST", "/api/account/login", "null"), 400, "invalid_request");
    expectErrorObject(await c.get("/api/no/such/thing"), 404, "not_found");
  });

  it("never answers 5xx or a stack trace, whatever the body (property test)", async () => {
    const c = await client();
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (body) => {
        const answer = await c.request("POST", "/api/account/login", JSON.stringify(body));
        expect(answer.status).toBeLessThan(500);
        expect(answer.text).not.toMatch(/at .*\.ts:\d+/u);
      }),
      { numRuns: 60 },
    );
  });
});

describe("throttling (docs/decisions.md: sign-in throttling)", () => {
  it(`blocks the address for a while after ${LOCKOUT_THRESHOLD} wrong passwords, even with the right one`, async () => {
    await createUser(server.app.db, {
      email: "lock@example.com",
      password: PASSWORD,
      firstName: "L",
      lastName: "K",
      countryCode: "DE",
    });
    for (let i = 1; i < LOCKOUT_THRESHOLD; i++) {
      expectErrorObject(
        await (await client()).login("lock@example.com", "wrong password"),
        401,
        "invalid_authentication",
      );
    }
    const blocked = expectErrorObject(
      await (await client()).login("lock@example.com", "wrong password"),
      429,
      "user_temporarily_blocked",
    );
    expect(blocked.temporary).toBe(true);
    expect(blocked.message).toContain("Forgot your password?");
    expectErrorObject(await (await client()).login("lock@example.com", PASSWORD), 429, "user_temporarily_blocked");
  });

  it("lets the admin unlock the account", async () => {
    await unlockUser(server.app.db, await existing("lock@example.com"));
    expect((await (await client()).login("lock@example.com", PASSWORD)).status).toBe(200);
  });

  it("blocks unknown addresses the same way, so a block reveals no account", async () => {
    for (let i = 1; i < LOCKOUT_THRESHOLD; i++) await (await client()).login("ghost@example.com", "wrong password");
    expectErrorObject(
      await (await client()).login("ghost@example.com", "wrong password"),
      429,
      "user_temporarily_blocked",
    );
  });

  it("lifts the block by itself when the window has passed, and a success resets the count", async () => {
    const db = server.app.db;
    await createUser(db, {
      email: "clock@example.com",
      password: PASSWORD,
      firstName: "C",
      lastName: "K",
      countryCode: "DE",
    });
    const t0 = Date.now();
    for (let i = 0; i < LOCKOUT_THRESHOLD; i++) await signInWithPassword(db, "clock@example.com", "wrong password", t0);
    expect(await signInWithPassword(db, "clock@example.com", PASSWORD, t0 + LOCKOUT_WINDOW_MS - 1)).toEqual({
      ok: false,
      refusal: "user_temporarily_blocked",
    });
    expect((await signInWithPassword(db, "clock@example.com", PASSWORD, t0 + LOCKOUT_WINDOW_MS)).ok).toBe(true);
    // After a success the count starts again from zero.
    for (let i = 1; i < LOCKOUT_THRESHOLD; i++)
      await signInWithPassword(db, "clock@example.com", "wrong password", t0 + LOCKOUT_WINDOW_MS + i);
    expect((await signInWithPassword(db, "clock@example.com", PASSWORD, t0 + LOCKOUT_WINDOW_MS + 10)).ok).toBe(true);
  });

  it("limits sign-in attempts per client address, whatever the account", async () => {
    const c = new Client(server.url, { "x-forwarded-for": "198.51.100.7" });
    await c.start();
    let last = await c.login("spray-0@example.com", "wrong password");
    for (let i = 1; i <= 30 && last.status !== 429; i++)
      last = await c.login(`spray-${i}@example.com`, "wrong password");
    const limited = expectErrorObject(last, 429, "rate_limited");
    expect(limited.temporary).toBe(true);
    // Another address is unaffected.
    expect((await (await client()).login("ann@example.com", PASSWORD)).status).toBe(200);
  });
});

describe("password hashing", () => {
  it("stores argon2id with the OWASP parameters", async () => {
    const user = await findUserByEmail(server.app.db, "ann@example.com");
    expect(user?.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/u);
  });

  it("rehashes at sign-in when the parameters changed", async () => {
    const user = await createUser(server.app.db, {
      email: "old@example.com",
      password: PASSWORD,
      firstName: "O",
      lastName: "H",
      countryCode: "DE",
    });
    const weak = await hash(PASSWORD, { algorithm: 2, memoryCost: 4096, timeCost: 1, parallelism: 1 });
    await usersStore.update(server.app.db, user.id, { password_hash: weak });
    expect(needsRehash(weak)).toBe(true);
    expect((await (await client()).login("old@example.com", PASSWORD)).status).toBe(200);
    const after = await findUserByEmail(server.app.db, "old@example.com");
    expect(after?.password_hash).not.toBe(weak);
    expect(needsRehash(after?.password_hash ?? "")).toBe(false);
  });
});

describe("POST /api/account/login/modes", () => {
  it("answers from the domain alone: corporate domains sign in through their company, others with a password", async () => {
    const corp = await startServer({ env: { IDPS_FILE: corporateOnlyFile() } });
    try {
      const c = await new Client(corp.url).start();
      expect((await c.post("/api/account/login/modes", { username: "Ann@BigCorp.example" })).json).toEqual({
        oidc: true,
        password: false,
      });
      expect((await c.post("/api/account/login/modes", { username: "ann@example.com" })).json).toEqual({
        oidc: false,
        password: true,
      });
      expect((await c.post("/api/account/login/modes", { username: "legacy-name" })).json).toEqual({
        oidc: false,
        password: true,
      });
      expectErrorObject(await c.post("/api/account/login/modes", {}), 400, "invalid_request");
    } finally {
      await corp.close();
    }
  });
});
