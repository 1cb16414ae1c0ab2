import { REMEMBER_BROWSER_MS } from "@gatehouse/contract";
import { trustedDevice } from "../accounts/device-cookies.ts";
import type { Db } from "../store/db.ts";
import type { UserRow } from "../store/schema.ts";
import { secondFactorsStore } from "../store/second-factors.ts";
import { factorsOf, hasSecondFactor } from "./factors.ts";

/**
 * "Remember this browser for 30 days" (issue #26): the browser's device cookie (accounts/device-cookies.ts: an HMAC
 * no one can mint, bound to one account's address) names a device id, and a row says that id skips the second factor
 * of that account until it expires. Stored server-side, so a password change, a factor reset or an account's
 * deletion forgets every remembered browser at once (ASVS 6.x: no trust that outlives the credential it rests on).
 */
export interface DeviceCookie {
  cookie: string;
  secret: string;
}

export async function rememberBrowser(db: Db, userId: string, deviceId: string, now = Date.now()): Promise<void> {
  await secondFactorsStore.rememberBrowser(db, userId, deviceId, now + REMEMBER_BROWSER_MS);
}

/** Every remembered browser of the account is forgotten (a password change or reset, the last factor removed). */
export async function forgetBrowsers(db: Db, userId: string): Promise<void> {
  await secondFactorsStore.forgetBrowsers(db, userId);
}

async function isRemembered(db: Db, user: UserRow, device: DeviceCookie | undefined, now: number): Promise<boolean> {
  const deviceId = device && trustedDevice(device.secret, device.cookie, user.email_normalized, now);
  return deviceId !== undefined && (await secondFactorsStore.isRemembered(db, user.id, deviceId, now));
}

/**
 * Whether a sign-in with this proof owes the second factor (issue #26): the account has one, the proof did not
 * include one (`mfa`: a passkey, a company's identity provider that reported its own MFA), and the browser is not
 * remembered for the account.
 */
export async function owesSecondFactor(
  db: Db,
  user: UserRow,
  amr: readonly string[],
  device: DeviceCookie | undefined,
  now = Date.now(),
): Promise<boolean> {
  if (amr.includes("mfa")) return false;
  if (!hasSecondFactor(await factorsOf(db, user.id))) return false;
  return !(await isRemembered(db, user, device, now));
}

/** Drops remembered browsers past their 30 days (the sweeper). */
export function sweepRememberedBrowsers(db: Db, now = Date.now(), limit?: number): Promise<number> {
  return secondFactorsStore.deleteExpiredBrowsers(db, now, limit);
}
