import { DEVICE_TRUST_MS } from "@gatehouse/contract";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { issueDeviceCookie, trustedDevice } from "../src/accounts/device-cookies.ts";

const secret = fc.string({ minLength: 32, maxLength: 64 });
const address = fc.emailAddress();

describe("device cookies", () => {
  it("vouch for the account they were issued for, in any spelling of its address, and no other", () => {
    fc.assert(
      fc.property(secret, address, address, (key, mine, other) => {
        const cookie = issueDeviceCookie(key, mine);
        expect(trustedDevice(key, cookie, mine)).toMatch(/^[\w-]{22}$/u);
        expect(trustedDevice(key, cookie, ` ${mine.toUpperCase()} `)).toBe(trustedDevice(key, cookie, mine));
        if (other.toLowerCase() !== mine.toLowerCase()) expect(trustedDevice(key, cookie, other)).toBeUndefined();
        expect(trustedDevice(`${key}x`, cookie, mine)).toBeUndefined();
      }),
    );
  });

  it("are worthless once any character is changed, added or removed", () => {
    fc.assert(
      fc.property(secret, address, fc.nat(), fc.constantFrom("A", "z", "0", "-", "_", ".", ""), (key, mine, at, c) => {
        const cookie = issueDeviceCookie(key, mine);
        const i = at % cookie.length;
        const altered = cookie.slice(0, i) + c + cookie.slice(i + 1);
        if (altered !== cookie) expect(trustedDevice(key, altered, mine)).toBeUndefined();
        expect(trustedDevice(key, `${cookie}${c || "A"}`, mine)).toBeUndefined();
      }),
      { numRuns: 500 },
    );
  });

  it("expire after DEVICE_TRUST_MS and are not accepted from the future", () => {
    const now = 1_800_000_000_000;
    const cookie = issueDeviceCookie("s".repeat(32), "ann@example.com", now);
    expect(trustedDevice("s".repeat(32), cookie, "ann@example.com", now + DEVICE_TRUST_MS - 1)).toBeDefined();
    expect(trustedDevice("s".repeat(32), cookie, "ann@example.com", now + DEVICE_TRUST_MS)).toBeUndefined();
    expect(trustedDevice("s".repeat(32), cookie, "ann@example.com", now - 10 * 60_000)).toBeUndefined();
    for (const junk of [undefined, "", "d1", "d1...", "d1.a.b.c", "x".repeat(5000)])
      expect(trustedDevice("s".repeat(32), junk, "ann@example.com", now)).toBeUndefined();
  });
});
