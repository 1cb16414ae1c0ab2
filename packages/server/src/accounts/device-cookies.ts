import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { DEVICE_TRUST_MS } from "@gatehouse/contract";
import { normalizeEmail } from "./identifiers.ts";

/**
 * Device cookies (OWASP "Slow Down Online Guessing Attacks with Device Cookies"): a browser that signed in to an
 * account gets a cookie that lets it spend its own allowance of password attempts, so strangers who exhaust the
 * account's shared allowance cannot keep the owner out (ASVS 6.3.1 / 6.1.1). The cookie is
 * `d1.<device id>.<issued, base 36>.<HMAC-SHA256>`, the HMAC under SESSION_SECRET over the device id, the time it
 * was issued and the account's normalised address: nobody can mint one, and one account's cookie is worthless
 * for another. Nothing is stored: the device id keys only the device's own attempt count.
 */
const VERSION = "d1";
const DEVICE_ID = /^[A-Za-z0-9_-]{22}$/u;
const ISSUED = /^[0-9a-z]{1,11}$/u;
const MAC = /^[A-Za-z0-9_-]{43}$/u;
/** Instances' clocks may differ a little: a cookie issued by one that runs ahead is still good on the others. */
const CLOCK_SKEW_MS = 60_000;

function mac(secret: string, deviceId: string, issued: string, address: string): Buffer {
  return createHmac("sha256", secret)
    .update(`device-cookie:${VERSION}:${deviceId}:${issued}:${normalizeEmail(address)}`)
    .digest();
}

/** A fresh device id: 128 random bits. */
export const newDeviceId = (): string => randomBytes(16).toString("base64url");

/**
 * A new device cookie for this browser and account (at every sign-in): with a new device id, or the one the browser's
 * good cookie for this account already names (issue #26: a remembered browser is remembered by it).
 */
export function issueDeviceCookie(secret: string, address: string, now = Date.now(), deviceId = newDeviceId()): string {
  const issued = now.toString(36);
  return [VERSION, deviceId, issued, mac(secret, deviceId, issued, address).toString("base64url")].join(".");
}

/**
 * The device id a cookie vouches for, when we issued it for this very account less than DEVICE_TRUST_MS ago;
 * undefined for anything else (another account's cookie, a forged or altered one, an old one).
 */
export function trustedDevice(
  secret: string,
  cookie: string | undefined,
  address: string,
  now = Date.now(),
): string | undefined {
  const [version, deviceId, issued, presented, ...rest] = (cookie ?? "").split(".");
  if (version !== VERSION || rest.length > 0 || !deviceId || !issued || !presented) return undefined;
  if (!DEVICE_ID.test(deviceId) || !ISSUED.test(issued) || !MAC.test(presented)) return undefined;
  const issuedAt = Number.parseInt(issued, 36);
  if (!(issuedAt <= now + CLOCK_SKEW_MS && now - issuedAt < DEVICE_TRUST_MS)) return undefined;
  // Compared as text, so no second spelling of the same bytes is accepted.
  const expected = Buffer.from(mac(secret, deviceId, issued, address).toString("base64url"));
  return timingSafeEqual(expected, Buffer.from(presented)) ? deviceId : undefined;
}
