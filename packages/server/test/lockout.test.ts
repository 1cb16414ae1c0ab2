import { DEVICE_TRUST_MS, LOCKOUT_THRESHOLD, LOCKOUT_WINDOW_MS } from "@gatehouse/contract";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { issueDeviceCookie } from "../src/accounts/device-cookies.ts";
import { signInWithPassword } from "../src/accounts/sign-in.ts";
import { createUser } from "../src/accounts/users.ts";
import { Client, expectErrorObject, mailTo, startServer, useMailServer } from "./harness.ts";
import { linkIn } from "./smtp.ts";

/**
 * An attacker must not be able to keep a real person out (issue #8; ASVS 6.3.1, 6.1.1; OWASP device cookies):
 * counters live in key spaces of their own, a browser that signed in keeps its own allowance, recovery works
 * during a block and lifts it, and the block is written to the audit trail once.
 */
const fx = useMailServer();
const PASSWORD = "Granite-Kettle-58";
const NEW_PASSWORD = "Copper-Lantern-91!";
let ip = 0;
/** A browser nobody has seen: its own client address, no cookies. */
const stranger = () => new Client(fx.server.url, { "x-forwarded-for": `100.64.${ip >> 8}.${++ip % 256}` }).start();

async function person(email: string) {
  return createUser(fx.server.app.db, {
    email,
    password: PASSWORD,
    firstName: "Pat",
    lastName: "Lee",
    countryCode: "DE",
  });
}

/** The owner's own browser: it signed in once (so it holds a device cookie) and signed out again. */
async function ownersBrowser(email: string): Promise<Client> {
  const browser = await stranger();
  expect((await browser.login(email, PASSWORD)).status).toBe(200);
  expect((await browser.post("/api/account/logout", {})).status).toBe(200);
  return browser;
}

/** Strangers spend the account's shared allowance with wrong passwords: the account is blocked for them. */
async function blockForStrangers(email: string) {
  for (let i = 1; i < LOCKOUT_THRESHOLD; i++)
    expectErrorObject(await (await stranger()).login(email, "wrong password"), 401, "invalid_authentication");
  expectErrorObject(await (await stranger()).login(email, "wrong password"), 429, "user_temporarily_blocked");
  expectErrorObject(await (await stranger()).login(email, PASSWORD), 429, "user_temporarily_blocked");
}

const mailNumber = (address: string, count: number) => mailTo(fx, address, { nth: count });

async function auditEvents(userId: string, event: string) {
  const rows = await fx.server.app.db
    .selectFrom("audit")
    .selectAll()
    .where("user_id", "=", userId)
    .where("event", "=", event)
    .execute();
  return rows;
}

async function counterRows(): Promise<number> {
  return (await fx.server.app.db.selectFrom("login_throttle").select("key").execute()).length;
}

describe("every counter in its own key space", () => {
  it("failed sign-ins under crafted identifiers neither block an account nor suppress its recovery mail", async () => {
    const victim = "keyspace@example.com";
    await person(victim);
    const crafted = [
      `recover:${victim}`,
      `login:recover:${victim}`,
      `login:${victim}`,
      `RECOVER:${victim}`,
      `device:${victim}`,
    ];
    for (const identifier of crafted)
      for (let i = 0; i < 2 * LOCKOUT_THRESHOLD; i++) await (await stranger()).login(identifier, "wrong password");
    expect((await (await stranger()).post("/api/account/recover", { email: victim })).status).toBe(200);
    expect(linkIn(await mailNumber(victim, 1), "/account/password-reset").searchParams.get("code")).toBeTruthy();
    expect((await (await stranger()).login(victim, PASSWORD)).status).toBe(200);
  });

  it("recovery requests count toward no sign-in block, under any identifier", async () => {
    const victim = "quota@example.com";
    await person(victim);
    for (let i = 0; i < 5; i++) await (await stranger()).post("/api/account/recover", { email: victim });
    expectErrorObject(
      await (await stranger()).login(`recover:${victim}`, "wrong password"),
      401,
      "invalid_authentication",
    );
    expect((await (await stranger()).login(victim, PASSWORD)).status).toBe(200);
  });

  it("an identifier that cannot be an account's address is refused without counting anywhere (property test)", async () => {
    const notAnAddress = fc
      .oneof(
        fc.string({ minLength: 1, maxLength: 40 }),
        fc.emailAddress().map((email) => `recover:${email}`),
        fc.emailAddress().map((email) => `${email}@`),
        fc.constantFrom("legacy-name", "ann", "a b@example.com", "@example.com"),
      )
      .filter((value) => value.trim() !== "" && !/^[^\s@:]+@[^\s@]+\.[a-z]{2,}$/iu.test(value.trim()));
    const before = await counterRows();
    await fc.assert(
      fc.asyncProperty(notAnAddress, async (identifier) => {
        for (let i = 0; i <= LOCKOUT_THRESHOLD; i++) {
          const answer = await (await stranger()).login(identifier, "wrong password");
          expect(answer.status, identifier).not.toBe(429);
          expect(answer.status, identifier).toBeLessThan(500);
        }
      }),
      { numRuns: 15 },
    );
    expect(await counterRows()).toBe(before);
  });
});

describe("a browser that signed in before keeps its own allowance (device cookie)", () => {
  it("signs the owner in from their browser while strangers have blocked the account", async () => {
    await person("owner@example.com");
    const owner = await ownersBrowser("owner@example.com");
    await blockForStrangers("owner@example.com");
    expect((await owner.login("owner@example.com", PASSWORD)).status).toBe(200);
    expectErrorObject(await (await stranger()).login("owner@example.com", PASSWORD), 429, "user_temporarily_blocked");
  });

  it("gives the trusted browser a threshold and a block of its own, and blocks no one else with it", async () => {
    const user = await person("fumble@example.com");
    const owner = await ownersBrowser("fumble@example.com");
    for (let i = 1; i < LOCKOUT_THRESHOLD; i++)
      expectErrorObject(await owner.login("fumble@example.com", "wrong password"), 401, "invalid_authentication");
    expectErrorObject(await owner.login("fumble@example.com", "wrong password"), 429, "user_temporarily_blocked");
    expectErrorObject(await owner.login("fumble@example.com", PASSWORD), 429, "user_temporarily_blocked");
    expect((await (await stranger()).login("fumble@example.com", PASSWORD)).status).toBe(200);
    const lockouts = await auditEvents(user.id, "lockout");
    expect(lockouts).toHaveLength(1);
    expect(lockouts[0]?.detail).toContain("trusted browser");
  });

  it("trusts a browser for the account it signed in to only, and never with an altered or expired cookie", async () => {
    await person("ann-d@example.com");
    await person("bob-d@example.com");
    const ann = await ownersBrowser("ann-d@example.com");
    await blockForStrangers("bob-d@example.com");
    expectErrorObject(await ann.login("bob-d@example.com", PASSWORD), 429, "user_temporarily_blocked");

    await blockForStrangers("ann-d@example.com");
    const cookie = ann.cookies.get("gh_device") ?? "";
    const [version, id, issued, mac] = cookie.split(".") as [string, string, string, string];
    const flip = (s: string) => `${s.slice(0, -2)}${s.at(-2) === "A" ? "B" : "A"}${s.at(-1)}`;
    const secret = fx.server.config.sessionSecret;
    const forged = [
      [version, flip(id), issued, mac],
      [version, id, (Number.parseInt(issued, 36) + 1).toString(36), mac],
      [version, id, issued, flip(mac)],
      ["d2", id, issued, mac],
      [version, id, issued],
      issueDeviceCookie(secret, "bob-d@example.com").split("."),
      issueDeviceCookie(secret, "ann-d@example.com", Date.now() - DEVICE_TRUST_MS).split("."),
      issueDeviceCookie("another-secret-that-is-long-enough-1234", "ann-d@example.com").split("."),
    ].map((parts) => parts.join("."));
    for (const value of forged) {
      const browser = await stranger();
      browser.cookies.set("gh_device", value);
      expectErrorObject(await browser.login("ann-d@example.com", PASSWORD), 429, "user_temporarily_blocked");
    }
    expect((await ann.login("ann-d@example.com", PASSWORD)).status).toBe(200);
  });

  it("sets the device cookie HttpOnly, SameSite=Strict and long-lived, __Host- and Secure over https", async () => {
    await person("cookie@example.com");
    const answer = await (await stranger()).login("cookie@example.com", PASSWORD);
    const cookie = answer.headers.getSetCookie().find((c) => c.startsWith("gh_device=")) ?? "";
    expect(cookie).toMatch(/^gh_device=d1\.[\w-]{22}\.[0-9a-z]+\.[\w-]{43};/u);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Strict");
    expect(cookie).toContain("Path=/");
    expect(cookie).toContain(`Max-Age=${DEVICE_TRUST_MS / 1000}`);

    const https = await startServer({ env: { PUBLIC_URL: "https://login.example.com" } });
    try {
      await createUser(https.app.db, { email: "tls@example.com", password: PASSWORD });
      const answer = await (await new Client(https.url).start()).login("tls@example.com", PASSWORD);
      const secure = answer.headers.getSetCookie().find((c) => c.startsWith("__Host-gh_device=")) ?? "";
      expect(secure).toContain("Secure");
      expect(secure).not.toContain("Domain=");
    } finally {
      await https.close();
    }
  });

  it("lets the owner change the password and ask for deletion from a trusted browser during a block", async () => {
    await person("busy@example.com");
    const owner = await ownersBrowser("busy@example.com");
    expect((await owner.login("busy@example.com", PASSWORD)).status).toBe(200);
    await blockForStrangers("busy@example.com");
    const changed = await owner.post("/api/account/change_password", { oldPassword: PASSWORD, password: NEW_PASSWORD });
    expect(changed.status).toBe(200);
    expect((await owner.post("/api/account/delete/request", { password: NEW_PASSWORD })).status).toBe(200);
  });
});

describe("recovery during a block", () => {
  it("mails the reset link, and the reset lifts the block for strangers and for the owner's blocked browser", async () => {
    const email = "recover-me@example.com";
    await person(email);
    const owner = await ownersBrowser(email);
    for (let i = 0; i < LOCKOUT_THRESHOLD; i++) await owner.login(email, "wrong password");
    await blockForStrangers(email);
    expectErrorObject(await owner.login(email, PASSWORD), 429, "user_temporarily_blocked");

    expect((await (await stranger()).post("/api/account/recover", { email })).status).toBe(200);
    const link = linkIn(await mailNumber(email, 1), "/account/password-reset");
    const reset = await (await stranger()).post("/api/account/reset_password", {
      code: link.searchParams.get("code"),
      password: NEW_PASSWORD,
    });
    expect(reset.status).toBe(200);
    expect((await (await stranger()).login(email, NEW_PASSWORD)).status).toBe(200);
    expect((await owner.login(email, NEW_PASSWORD)).status).toBe(200);
  });
});

describe("the audit trail", () => {
  it("records a block once, when it starts, however many attempts follow during it", async () => {
    const user = await person("audited-block@example.com");
    await blockForStrangers("audited-block@example.com");
    for (let i = 0; i < 10; i++) await (await stranger()).login("audited-block@example.com", "wrong password");
    const lockouts = await auditEvents(user.id, "lockout");
    expect(lockouts).toHaveLength(1);
    expect(lockouts[0]?.detail).toMatch(/not trusted.*until \d{4}-/u);
    expect(lockouts[0]?.ip).toMatch(/^100\.64\./u);

    // The next block, after this one has run out, is recorded again.
    const later = Date.now() + LOCKOUT_WINDOW_MS + 1;
    for (let i = 0; i < LOCKOUT_THRESHOLD + 3; i++)
      await signInWithPassword(fx.server.app.db, "audited-block@example.com", "wrong password", later + i);
    expect(await auditEvents(user.id, "lockout")).toHaveLength(2);
  });

  it("records a block started by wrong current passwords once as well", async () => {
    const user = await person("audited-change@example.com");
    const owner = await stranger();
    expect((await owner.login("audited-change@example.com", PASSWORD)).status).toBe(200);
    for (let i = 0; i < LOCKOUT_THRESHOLD + 5; i++)
      await owner.post("/api/account/change_password", { oldPassword: "wrong password", password: NEW_PASSWORD });
    expect(await auditEvents(user.id, "lockout")).toHaveLength(1);
  });
});
