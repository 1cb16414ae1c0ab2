import { hash } from "node:crypto";
import {
  type PasskeyAuthenticationResponse,
  PasskeyCreationOptions,
  type PasskeyRegistrationResponse,
  PasskeyRequestOptions,
  type PasskeySummary,
  WEBAUTHN_CHALLENGE_TTL_MS,
} from "@gatehouse/contract";
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";
import { isoBase64URL } from "@simplewebauthn/server/helpers";
import { getDomain } from "tldts";
import type { z } from "zod/mini";
import { revokeOfflineGrants } from "../accounts/access-lost.ts";
import { audit } from "../audit/audit.ts";
import type { Config } from "../config.ts";
import type { MailSite } from "../mail/links.ts";
import { isLoopbackHost, siteOf, siteOrigins } from "../settings/sites.ts";
import type { Db } from "../store/db.ts";
import { passkeysStore } from "../store/passkeys.ts";
import type { PasskeyRow, UserRow } from "../store/schema.ts";
import { secondFactorsStore } from "../store/second-factors.ts";
import { usersStore } from "../store/users.ts";
import { factorsOf, hasSecondFactor } from "./factors.ts";
import { notifyFactorChange } from "./notify.ts";
import { newRecoveryCodes } from "./recovery-codes.ts";
import { forgetBrowsers } from "./remembered-browsers.ts";

/**
 * Passkeys (issue #26, WebAuthn Level 3 with @simplewebauthn/server): the relying-party id of each brand host, the
 * ceremonies' challenges, registration, and the verification of an assertion. Deciding what an assertion opens (a
 * sign-in, an attempt's second factor, a step-up) is the sign-in core's and the routes'.
 */

export type RegistrationResponse = z.infer<typeof PasskeyRegistrationResponse>;
export type AuthenticationResponse = z.infer<typeof PasskeyAuthenticationResponse>;
export type PasskeySummaryAnswer = z.infer<typeof PasskeySummary>;

/** What a ceremony's challenge is kept for. */
export type CeremonyPurpose = "register" | "sign_in" | "second_factor" | "reauthenticate";

/** The host of a request as the brands file knows it, else PUBLIC_URL's (never a Host header's own name). */
function knownHost(config: Config, hostname: string): string {
  return siteOf(config, hostname)?.host ?? config.publicUrl.hostname;
}

/**
 * The RP ID of a host (docs/decisions.md "Passkeys"): its registrable domain by the Public Suffix List, as browsers
 * read it (`tldts`, private suffixes included): login.archviz.example → archviz.example, login.brand.co.uk →
 * brand.co.uk, every brand under gatehouse.example → gatehouse.example. So a passkey works on every host of that
 * domain and never across domains. A loopback or IP host is its own RP ID (archviz.localhost: localhost is a
 * top-level domain to browsers).
 */
export function rpIdOfHost(host: string): string {
  if (isLoopbackHost(host) || /^[0-9.]+$/u.test(host) || host.startsWith("[")) return host;
  return getDomain(host, { allowPrivateDomains: true }) ?? host;
}

export const rpIdOf = (config: Config, hostname: string): string => rpIdOfHost(knownHost(config, hostname));

/**
 * The origins an assertion or attestation of this RP ID may come from: the brands file's hosts (and PUBLIC_URL's)
 * whose RP ID it is, matched exactly (WebAuthn L3 §13.4.9, the origin check that makes passkeys phishing-resistant).
 */
export function expectedOrigins(config: Config, rpId: string): string[] {
  return siteOrigins(config).filter((origin) => rpIdOfHost(new URL(origin).hostname) === rpId);
}

/** The challenge's key: the browser's token is never stored (a stolen table binds nothing). */
const challengeId = (browserToken: string, purpose: CeremonyPurpose) =>
  hash("sha256", `webauthn:${purpose}:${browserToken}`, "hex");

async function keepChallenge(
  db: Db,
  ceremony: { browserToken: string; purpose: CeremonyPurpose; userId: string | null; rpId: string },
  challenge: string,
  now: number,
): Promise<void> {
  await passkeysStore.deleteExpiredChallenges(db, now);
  await passkeysStore.putChallenge(db, {
    id: challengeId(ceremony.browserToken, ceremony.purpose),
    challenge,
    purpose: ceremony.purpose,
    user_id: ceremony.userId,
    rp_id: ceremony.rpId,
    expires_at: now + WEBAUTHN_CHALLENGE_TTL_MS,
  });
}

const transportsOf = (row: PasskeyRow) =>
  row.transports ? (row.transports.split(" ") as AuthenticatorTransportFuture[]) : undefined;
type AuthenticatorTransportFuture = "ble" | "cable" | "hybrid" | "internal" | "nfc" | "smart-card" | "usb";

export const summaryOf = (row: PasskeyRow): PasskeySummaryAnswer => ({
  id: row.id,
  name: row.name,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
  backedUp: row.backed_up === 1,
});

export async function passkeysOf(db: Db, userId: string): Promise<PasskeySummaryAnswer[]> {
  return (await passkeysStore.listOf(db, userId)).map(summaryOf);
}

/** The account a passkey ceremony registers for. */
export interface PasskeyAccount {
  id: string;
  email: string;
  displayName: string;
}

/**
 * A new passkey's creation options: a discoverable credential (usernameless sign-in needs it), user verification
 * required (a passkey alone counts as two factors), no attestation (we trust no vendor list, and ask for nothing
 * identifying), the account's passkeys excluded (one authenticator, one passkey).
 */
export async function registrationOptions(
  db: Db,
  ceremony: { browserToken: string; rpId: string; rpName: string; account: PasskeyAccount },
  now = Date.now(),
): Promise<z.infer<typeof PasskeyCreationOptions>> {
  const { account, rpId } = ceremony;
  const existing = await passkeysStore.listOf(db, account.id);
  const options = await generateRegistrationOptions({
    rpName: ceremony.rpName,
    rpID: rpId,
    userName: account.email,
    userDisplayName: account.displayName || account.email,
    userID: new TextEncoder().encode(account.id),
    attestationType: "none",
    timeout: WEBAUTHN_CHALLENGE_TTL_MS,
    excludeCredentials: existing.map((row) => ({ id: row.id, transports: transportsOf(row) ?? [] })),
    authenticatorSelection: { residentKey: "required", requireResidentKey: true, userVerification: "required" },
  });
  const kept = { browserToken: ceremony.browserToken, purpose: "register" as const, userId: account.id, rpId };
  await keepChallenge(db, kept, options.challenge, now);
  // The contract's form of the library's answer (its descriptors' `type` is typed as any string).
  return PasskeyCreationOptions.parse(options);
}

/** A registration's outcome: the new passkey, and whether it is the account's first second factor. */
export type Registered = { ok: true; passkey: PasskeyRow; recoveryCodes?: string[] } | { ok: false };

/** Who acts, from where, and where their mail links to. */
/**
 * What a passkey proves (RFC 8176): a key (`swk`), user verification (`user`), two factors (`mfa`). Never `hwk`: with
 * attestation "none", a device-bound flag is the authenticator's own word, and any software authenticator can say it
 * (an attacker's review of issue #26), so a site is never told "hardware" on an unproven claim.
 */
export const PASSKEY_AMR = ["swk", "user", "mfa"] as const;

export interface PasskeyActor {
  client: { ip: string; userAgent: string };
  site: MailSite;
  /** SESSION_SECRET, which keys the recovery codes' hashes (recovery-codes.ts). */
  sessionSecret: string;
}

/**
 * Verifies a creation against this browser's challenge (single-use), the expected origins and RP ID, and user
 * verification (ASVS 6.5.x), then keeps the credential.
 */
export async function registerPasskey(
  db: Db,
  config: Config,
  ceremony: { browserToken: string; rpId: string; userId: string; name: string; response: RegistrationResponse },
  actor: PasskeyActor,
  now = Date.now(),
): Promise<Registered> {
  const { rpId, userId, response } = ceremony;
  const challenge = await passkeysStore.takeChallenge(db, challengeId(ceremony.browserToken, "register"), now);
  if (!challenge || challenge.user_id !== userId || challenge.rp_id !== rpId) return { ok: false };
  let info: Awaited<ReturnType<typeof verifyRegistrationResponse>>["registrationInfo"];
  try {
    const verified = await verifyRegistrationResponse({
      response,
      expectedChallenge: challenge.challenge,
      expectedOrigin: expectedOrigins(config, rpId),
      expectedRPID: rpId,
      requireUserVerification: true,
    });
    if (!verified.verified) return { ok: false };
    info = verified.registrationInfo;
  } catch {
    return { ok: false };
  }
  const user = await usersStore.findById(db, userId);
  if (!user) return { ok: false };
  const row: Omit<PasskeyRow, "last_used_at"> = {
    id: info.credential.id,
    user_id: userId,
    rp_id: rpId,
    public_key: isoBase64URL.fromBuffer(info.credential.publicKey),
    counter: info.credential.counter,
    transports: (response.response.transports ?? []).join(" "),
    device_type: info.credentialDeviceType,
    backed_up: info.credentialBackedUp ? 1 : 0,
    name: ceremony.name,
    created_at: now,
  };
  const who = { userId, ip: actor.client.ip, userAgent: actor.client.userAgent };
  const kept = await db.transaction().execute(async (trx) => {
    const hadFactor = hasSecondFactor(await factorsOf(trx, userId));
    // A credential registered already (to this account or another) is refused, not moved.
    if (!(await passkeysStore.insert(trx, row))) return undefined;
    // The account's first second factor comes with its recovery codes, shown once (as the authenticator app's).
    const recoveryCodes = hadFactor ? undefined : await newRecoveryCodes(trx, actor.sessionSecret, userId, now);
    await notifyFactorChange(trx, user, { kind: "added", factor: "passkey" }, actor.site, now);
    await audit(trx, "second_factor_added", { ...who, detail: `passkey: ${ceremony.name}` }, now);
    if (recoveryCodes) await audit(trx, "recovery_codes_created", who, now);
    return { recoveryCodes };
  });
  if (!kept) return { ok: false };
  const passkey = { ...row, last_used_at: null };
  return kept.recoveryCodes ? { ok: true, passkey, recoveryCodes: kept.recoveryCodes } : { ok: true, passkey };
}

/**
 * A request's options: `userId` null for a usernameless sign-in (no allowed credentials: the authenticator offers
 * its discoverable ones), else that account's passkeys for this RP ID (an attempt's second factor, a step-up).
 */
export async function requestOptions(
  db: Db,
  ceremony: { browserToken: string; rpId: string; purpose: CeremonyPurpose; userId: string | null },
  now = Date.now(),
): Promise<z.infer<typeof PasskeyRequestOptions>> {
  const { rpId, userId } = ceremony;
  const mine = userId ? (await passkeysStore.listOf(db, userId)).filter((row) => row.rp_id === rpId) : [];
  const options = await generateAuthenticationOptions({
    rpID: rpId,
    allowCredentials: mine.map((row) => ({ id: row.id, transports: transportsOf(row) ?? [] })),
    userVerification: "required",
    timeout: WEBAUTHN_CHALLENGE_TTL_MS,
  });
  await keepChallenge(db, ceremony, options.challenge, now);
  return PasskeyRequestOptions.parse(options);
}

/** An assertion that verified: the passkey (its use recorded) and the RFC 8176 values it proves. */
export type Asserted =
  | { ok: true; passkey: PasskeyRow; user: UserRow; amr: typeof PASSKEY_AMR }
  | { ok: false; cloned?: boolean };

/**
 * Verifies an assertion against this browser's challenge for `purpose` (single-use): the credential must be known
 * for this RP ID (and the challenge's account's, when it named one), signed over the expected origin and RP ID, with
 * the user-verified flag, and its signature counter must move forward. Every refusal is the same to the caller
 * (ASVS 6.3.8: no telling an unknown credential from a bad signature).
 */
export async function verifyAssertion(
  db: Db,
  config: Config,
  ceremony: { browserToken: string; rpId: string; purpose: CeremonyPurpose; response: AuthenticationResponse },
  context: { ip: string; userAgent: string },
  now = Date.now(),
): Promise<Asserted> {
  const { rpId, response } = ceremony;
  const challenge = await passkeysStore.takeChallenge(db, challengeId(ceremony.browserToken, ceremony.purpose), now);
  if (!challenge || challenge.rp_id !== rpId) return { ok: false };
  const passkey = await passkeysStore.find(db, response.id);
  if (!passkey || passkey.rp_id !== rpId) return { ok: false };
  if (challenge.user_id !== null && challenge.user_id !== passkey.user_id) return { ok: false };
  let newCounter: number;
  try {
    const verified = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge.challenge,
      expectedOrigin: expectedOrigins(config, rpId),
      expectedRPID: rpId,
      requireUserVerification: true,
      // The counter is checked below, in the same statement that records it (two replays cannot both pass).
      credential: { id: passkey.id, publicKey: isoBase64URL.toBuffer(passkey.public_key), counter: 0 },
    });
    if (!verified.verified || !verified.authenticationInfo.userVerified) return { ok: false };
    newCounter = verified.authenticationInfo.newCounter;
  } catch {
    return { ok: false };
  }
  if (!(await passkeysStore.recordUse(db, passkey.id, newCounter, now))) {
    // WebAuthn L3 §6.1.1: a counter that did not move forward may mean a cloned authenticator.
    const detail = `passkey ${passkey.name}: signature counter ${newCounter} not above ${passkey.counter}, possibly cloned`;
    await audit(
      db,
      "passkey_refused",
      { userId: passkey.user_id, ip: context.ip, userAgent: context.userAgent, detail },
      now,
    );
    return { ok: false, cloned: true };
  }
  const user = await usersStore.findById(db, passkey.user_id);
  if (!user) return { ok: false };
  const used = { ...passkey, counter: newCounter, last_used_at: now };
  return { ok: true, passkey: used, user, amr: PASSKEY_AMR };
}

export async function renamePasskey(
  db: Db,
  userId: string,
  id: string,
  name: string,
): Promise<PasskeySummaryAnswer | undefined> {
  const row = await passkeysStore.rename(db, userId, id, name);
  return row ? summaryOf(row) : undefined;
}

/**
 * Removes a passkey; without a second factor left, the recovery codes and remembered browsers go too (they fall back
 * to a factor the account no longer has), as the authenticator app's removal does; the person is mailed.
 */
export async function removePasskey(
  db: Db,
  userId: string,
  id: string,
  actor: PasskeyActor,
  now = Date.now(),
): Promise<boolean> {
  const user = await usersStore.findById(db, userId);
  if (!user) return false;
  return db.transaction().execute(async (trx) => {
    if (!(await passkeysStore.remove(trx, userId, id))) return false;
    const lastFactor = !hasSecondFactor(await factorsOf(trx, userId));
    if (lastFactor) {
      await secondFactorsStore.deleteRecoveryCodes(trx, userId);
      await forgetBrowsers(trx, userId);
    }
    // Issue #27: the apps that stay signed in without a session lose their access: whoever removed the factor may
    // have let one in (docs/decisions.md "What a password change ends").
    await revokeOfflineGrants(trx, userId, now);
    await notifyFactorChange(trx, user, { kind: "removed", factor: "passkey", lastFactor }, actor.site, now);
    const who = { userId, ip: actor.client.ip, userAgent: actor.client.userAgent };
    await audit(trx, "second_factor_removed", { ...who, detail: "passkey" }, now);
    return true;
  });
}

/**
 * A passkey's default name: the browser and platform it was made on ("Chrome on Windows"), as the person would
 * recognise it in the list.
 */
export function defaultPasskeyName(userAgent: string): string {
  const browser =
    [
      ["Edge", /Edg\//u],
      ["Opera", /OPR\//u],
      ["Firefox", /Firefox\//u],
      ["Chrome", /Chrome\//u],
      ["Safari", /Safari\//u],
    ].find(([, pattern]) => (pattern as RegExp).test(userAgent))?.[0] ?? "Passkey";
  const platform = [
    ["iPhone", /iPhone/u],
    ["iPad", /iPad/u],
    ["Android", /Android/u],
    ["Windows", /Windows/u],
    ["macOS", /Mac OS X|Macintosh/u],
    ["ChromeOS", /CrOS/u],
    ["Linux", /Linux/u],
  ].find(([, pattern]) => (pattern as RegExp).test(userAgent))?.[0];
  return platform ? `${browser} on ${platform}` : String(browser);
}
