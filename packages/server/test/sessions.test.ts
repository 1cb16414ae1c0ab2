import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from "@gatehouse/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser, disableUser } from "../src/accounts/users.ts";
import { csrfMatches, csrfToken, findSession, openSession, sessionId } from "../src/sessions/sessions.ts";
import { type Db, migrate, openDatabase } from "../src/store/db.ts";
import { tempDir } from "./harness.ts";

let db: Db;
beforeAll(async () => {
  db = openDatabase(`sqlite:${tempDir()}/s.db`).db;
  await migrate(db);
});
afterAll(() => db.destroy());

const meta = { ip: "127.0.0.1", userAgent: "test" };
const signIn = (userId: string) => ({ userId, method: "password" as const, amr: ["pwd"], authTime: Date.now() });

describe("sessions (ASVS 7.3)", () => {
  it("stores only a hash of the token", async () => {
    const user = await createUser(db, {
      email: "h@example.com",
      password: "password1",
      firstName: "H",
      lastName: "H",
      countryCode: "DE",
    });
    const token = await openSession(db, signIn(user.id), meta);
    const row = await db.selectFrom("sessions").selectAll().where("user_id", "=", user.id).executeTakeFirstOrThrow();
    expect(row.id).toBe(sessionId(token));
    expect(row.id).not.toContain(token);
  });

  it("ends after the idle timeout and after the absolute lifetime", async () => {
    const user = await createUser(db, {
      email: "t@example.com",
      password: "password1",
      firstName: "T",
      lastName: "T",
      countryCode: "DE",
    });
    const t0 = 1_800_000_000_000;
    const idle = await openSession(db, signIn(user.id), meta, t0);
    expect(await findSession(db, idle, t0 + SESSION_IDLE_MS - 1)).toBeDefined();
    expect(await findSession(db, idle, t0 + 2 * SESSION_IDLE_MS)).toBeUndefined();

    const busy = await openSession(db, signIn(user.id), meta, t0);
    // Activity keeps it alive, but never past the absolute lifetime.
    for (let t = t0; t < t0 + SESSION_ABSOLUTE_MS; t += SESSION_IDLE_MS / 2)
      expect(await findSession(db, busy, t), String(t)).toBeDefined();
    expect(await findSession(db, busy, t0 + SESSION_ABSOLUTE_MS)).toBeUndefined();
  });

  it("ends when the user is disabled", async () => {
    const user = await createUser(db, {
      email: "d@example.com",
      password: "password1",
      firstName: "D",
      lastName: "D",
      countryCode: "DE",
    });
    const token = await openSession(db, signIn(user.id), meta);
    await disableUser(db, user);
    expect(await findSession(db, token)).toBeUndefined();
  });

  it("derives a CSRF token per session and compares it in constant time", () => {
    const a = csrfToken("secret-secret-secret-secret-secret!", "token-a");
    expect(a).not.toBe(csrfToken("secret-secret-secret-secret-secret!", "token-b"));
    expect(a).not.toBe(csrfToken("another-secret-another-secret-xx", "token-a"));
    expect(csrfMatches("secret-secret-secret-secret-secret!", "token-a", a)).toBe(true);
    expect(csrfMatches("secret-secret-secret-secret-secret!", "token-a", `${a}x`)).toBe(false);
    expect(csrfMatches("secret-secret-secret-secret-secret!", "token-a", undefined)).toBe(false);
  });
});

describe("HMAC-SHA256 on one-shot hashes", () => {
  it("equals node:crypto's createHmac for short, block-sized, long and Unicode keys and messages", async () => {
    const { createHmac } = await import("node:crypto");
    const { hmacSha256 } = await import("../src/sessions/hmac.ts");
    const keys = ["k", "x".repeat(32), "y".repeat(64), "z".repeat(65), "ключ-秘密-🔑".repeat(9)];
    const messages = [
      "",
      "csrf:abc",
      "m".repeat(200),
      "n".repeat(256),
      "o".repeat(257),
      "p".repeat(5000),
      "Grüße 😀".repeat(40),
    ];
    for (const key of keys) {
      const mac = hmacSha256(key);
      for (const message of messages) {
        expect(mac(message)).toBe(createHmac("sha256", key).update(message).digest("base64url"));
      }
    }
  });
});
