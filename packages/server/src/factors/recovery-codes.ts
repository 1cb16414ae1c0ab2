import { createHmac, hkdfSync, randomBytes } from "node:crypto";
import { RECOVERY_CODES_COUNT } from "@gatehouse/contract";
import type { Db } from "../store/db.ts";
import { secondFactorsStore } from "../store/second-factors.ts";

/**
 * Recovery codes (issue #26): RECOVERY_CODES_COUNT single-use codes, shown once. Each is 10 characters of a
 * lower-case base32 alphabet without the letters people confuse (Crockford's: no i, l, o, u), 50 random bits from
 * crypto.randomBytes (well above the 20 bits NIST SP 800-63B §5.1.2.2 asks of throttled look-up secrets; ASVS
 * 6.5.x), shown `xxxxx-xxxxx`. Stored as HMAC-SHA-256 of the account's id and the code under a key derived from
 * SESSION_SECRET (no two accounts' codes collide on the table's key), never in clear: 50 bits are within reach of an
 * offline search of a plain hash, so a stolen database without the secret must not give working codes (NIST SP
 * 800-63B §5.1.2.2: a keyed hash for look-up secrets under 64 bits; an attacker's review of issue #26).
 */
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";
const CODE_CHARS = 10;

function newCode(): string {
  // 256 is a multiple of 32: each byte's low five bits are uniform.
  const chars = [...randomBytes(CODE_CHARS)].map((byte) => ALPHABET[byte & 31]).join("");
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

/** A code as typed: spaces, hyphens and case are the person's; the look-alikes Crockford maps are read as meant. */
export function normalizeRecoveryCode(input: string): string {
  return input.trim().toLowerCase().replace(/[\s-]/gu, "").replace(/[il]/gu, "1").replace(/o/gu, "0");
}

const keys = new Map<string, Buffer>();
/** The recovery codes' HMAC key, derived from SESSION_SECRET with its own label (once per secret). */
function keyOf(sessionSecret: string): Buffer {
  let key = keys.get(sessionSecret);
  if (!key) {
    key = Buffer.from(hkdfSync("sha256", sessionSecret, "gatehouse", "recovery codes", 32));
    keys.set(sessionSecret, key);
  }
  return key;
}

export const recoveryCodeHash = (sessionSecret: string, userId: string, code: string): string =>
  createHmac("sha256", keyOf(sessionSecret))
    .update(`recovery-code:${userId}:${normalizeRecoveryCode(code)}`)
    .digest("hex");

/** A new set for the account: the previous set stops working. Answers the codes, to be shown once. */
export async function newRecoveryCodes(
  db: Db,
  sessionSecret: string,
  userId: string,
  now = Date.now(),
): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODES_COUNT }, newCode);
  await secondFactorsStore.replaceRecoveryCodes(
    db,
    userId,
    codes.map((code) => recoveryCodeHash(sessionSecret, userId, code)),
    now,
  );
  return codes;
}

/** Spends a code once: of two requests with the same code, only the one whose update marked it wins. */
export function spendRecoveryCode(
  db: Db,
  sessionSecret: string,
  userId: string,
  input: string,
  now = Date.now(),
): Promise<boolean> {
  const normalized = normalizeRecoveryCode(input);
  if (normalized.length !== CODE_CHARS || ![...normalized].every((c) => ALPHABET.includes(c))) {
    return Promise.resolve(false);
  }
  return secondFactorsStore.spendRecoveryCode(db, userId, recoveryCodeHash(sessionSecret, userId, normalized), now);
}
