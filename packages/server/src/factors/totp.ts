import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { TOTP as TOTP_RULE } from "@gatehouse/contract";
import { Secret, TOTP } from "otpauth";

/**
 * Authenticator apps (RFC 6238; issue #26): SHA-1, 6 digits, 30-second steps, as every app reads an `otpauth://`
 * URI. The library computes and compares codes; this module only decides which secret, which step and how the
 * secret is kept.
 */

/** A new secret: TOTP.secretBytes random bytes (160 bits, RFC 4226 §4 R6), base32 as apps take it by hand. */
export function newTotpSecret(): string {
  return new Secret({ buffer: randomBytes(TOTP_RULE.secretBytes).buffer as ArrayBuffer }).base32;
}

function totpOf(secret: string, label = "", issuer = ""): TOTP {
  return new TOTP({
    issuer,
    label,
    secret: Secret.fromBase32(secret),
    algorithm: TOTP_RULE.algorithm,
    digits: TOTP_RULE.digits,
    period: TOTP_RULE.periodS,
  });
}

/** The `otpauth://totp/<issuer>:<email>?secret=…&issuer=…` URI an app scans; the issuer is the brand's name. */
export function totpUri(secret: string, email: string, issuer: string): string {
  return totpOf(secret, email, issuer).toString();
}

/** The code of a secret at a time (tests, and nothing else on the server: codes are typed by the person). */
export function totpCode(secret: string, timestamp: number): string {
  return totpOf(secret).generate({ timestamp });
}

/** The RFC 6238 time step of a moment. */
export const timeStep = (timestamp: number): number => Math.floor(timestamp / 1000 / TOTP_RULE.periodS);

/**
 * The time step a code belongs to, within ±TOTP.window steps of `now` (drift of the phone's clock), or null. Whether
 * that step was used already is the caller's question (the replay rule needs the database).
 */
export function matchingStep(secret: string, code: string, now: number): number | null {
  const token = code.replace(/\s/gu, "");
  if (!/^\d{6}$/u.test(token)) return null;
  const delta = totpOf(secret).validate({ token, timestamp: now, window: TOTP_RULE.window });
  return delta === null ? null : timeStep(now) + delta;
}

/**
 * The secret at rest is sealed (ASVS 11.x / 14.x: secrets encrypted at rest) with AES-256-GCM under a key derived
 * from SESSION_SECRET (HKDF, its own label), with the user id as additional data: a row copied onto another account
 * does not open. node:crypto's AEAD only, no hand-written crypto (as oidc/keys.ts seals signing keys).
 */
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

const sealKey = (sessionSecret: string) =>
  Buffer.from(hkdfSync("sha256", sessionSecret, "gatehouse", "totp secrets at rest", KEY_BYTES));

export function sealSecret(sessionSecret: string, userId: string, secret: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", sealKey(sessionSecret), iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(userId));
  const sealed = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return [iv, cipher.getAuthTag(), sealed].map((part) => part.toString("base64url")).join(".");
}

/** The sealed secret, or undefined when it does not open (another secret, another account's row, altered). */
export function openSecret(sessionSecret: string, userId: string, sealed: string): string | undefined {
  const [iv, tag, data] = sealed.split(".").map((part) => Buffer.from(part, "base64url"));
  if (!iv || !tag || !data) return undefined;
  try {
    const decipher = createDecipheriv("aes-256-gcm", sealKey(sessionSecret), iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(userId));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(data), decipher.final()]).toString("utf8");
  } catch {
    return undefined;
  }
}
