/**
 * The seeded population (issue #28): which account of index i is in which state, language and brand, what password it
 * has and which rows it owns. Everything about account i is a function of i, so the bench and the tests know a seeded
 * account's address and password without reading the database; only ids and secrets are random.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { ACTIVITY_KINDS, BRAND_IDS, LANGUAGE_CODES } from "@gatehouse/contract";
import { newTotpSecret, sealSecret } from "../../packages/server/src/factors/totp.ts";

const DAY = 86_400_000;
/** A handful of passwords, each hashed once (argon2id is ~50 ms a hash: a million runs would take hours). */
export const SEED_PASSWORDS = [
  "quiet harbour lantern 42",
  "amber valley compass 17",
  "silver meadow kettle 93",
  "copper island beacon 58",
] as const;
/** The gateway's SESSION_SECRET in the bench (bench/gateway.ts): authenticator secrets are sealed under it. */
export const SEED_SESSION_SECRET = "bench-secret-bench-secret-bench-secret";

const FIRST = ["Anna", "Luis", "Marta", "Jonas", "Chiara", "Léa", "Wei", "Min-jun", "Yui", "Sam", "Ola", "Ravi"];
const LAST = ["Meyer", "García", "Silva", "Rossi", "Martin", "Wang", "Kim", "Sato", "Smith", "Nowak", "Haddad"];
const COUNTRIES = ["DE", "ES", "BR", "IT", "FR", "CN", "KR", "JP", "US", "GB", "PL", "IN"];
const DOMAINS = ["example.com", "example.org", "example.net"];
const PROVIDERS = ["google", "facebook", "trimble"];
const AGENTS = [
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0",
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15",
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
];
const CLIENTS = ["enscape", "example-app", "dev-site"];

export type SeedStatus = "pending" | "active" | "disabled";

/** One account in 20 never activated its address, one in 50 was disabled; the rest are active. */
export function seededStatus(i: number): SeedStatus {
  if (i % 50 === 3) return "disabled";
  if (i % 20 === 7) return "pending";
  return "active";
}

/** Lower-case already, so the address is its own normalised form. */
export const seededEmail = (i: number): string => `seed-${i}@${DOMAINS[i % DOMAINS.length]}`;
export const seededPassword = (i: number): string => SEED_PASSWORDS[i % SEED_PASSWORDS.length] as string;
export const seededLanguage = (i: number): string => LANGUAGE_CODES[i % LANGUAGE_CODES.length] as string;
/** Active accounts that signed up with a provider and never set a password (one in 40). */
const passwordless = (i: number) => i % 40 === 13;
/** One active account in 10 has a provider identity (all the passwordless ones among them). */
const hasIdentity = (i: number) => seededStatus(i) === "active" && (i % 10 === 3 || passwordless(i));
/** One active account in 20 has an authenticator app and recovery codes. */
const hasFactor = (i: number) => seededStatus(i) === "active" && i % 20 === 5;
/** One account in 100 must change its password at its next sign-in. */
const mustUpdatePassword = (i: number) => i % 100 === 42;
/** One active account in 5 has granted an app (an OpenID Connect grant with its refresh and access tokens). */
const hasGrant = (i: number) => seededStatus(i) === "active" && i % 5 === 1;

/** True when a password sign-in of account i ends signed in at once (no second factor, no owed step). */
export function plainSignIn(i: number): boolean {
  return seededStatus(i) === "active" && !passwordless(i) && !hasFactor(i) && !mustUpdatePassword(i);
}

/** The index of the first plainly signable account at or after i. */
export function plainSignInFrom(i: number): number {
  let j = i;
  while (!plainSignIn(j)) j += 1;
  return j;
}

/** What the seed needs once: the accounts' ids and the encoded hashes of SEED_PASSWORDS. */
export interface Population {
  accounts: number;
  ids: string[];
  hashes: string[];
  now: number;
}

export function population(accounts: number, hashes: string[], now = Date.now()): Population {
  return { accounts, ids: Array.from({ length: accounts }, () => randomUUID()), hashes, now };
}

/** One table's rows, as value arrays in `columns` order: those of the accounts from `from` up to `to`. */
export interface TableRows {
  table: string;
  columns: string[];
  rows: (from: number, to: number) => Iterable<unknown[]>;
}

const pick = <T>(list: readonly T[], n: number): T => list[n % list.length] as T;
const hex = (bytes: number) => randomBytes(bytes).toString("hex");
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

function* users(p: Population, from: number, to: number): Iterable<unknown[]> {
  for (let i = from; i < to; i++) {
    const status = seededStatus(i);
    const created = p.now - ((i * 7919) % 1095) * DAY - (i % 86_400) * 1000;
    yield [
      p.ids[i],
      seededEmail(i),
      seededEmail(i),
      passwordless(i) ? null : p.hashes[i % p.hashes.length],
      pick(FIRST, i),
      pick(LAST, i >> 3),
      pick(COUNTRIES, i >> 1),
      i % 3 === 0 ? 1 : 0,
      status,
      i % 7 === 0 ? `C${String(1_000_000 + i)}` : null,
      1,
      mustUpdatePassword(i) ? 1 : 0,
      0,
      seededLanguage(i),
      pick(BRAND_IDS, i >> 2),
      created,
      created + (i % 30) * DAY,
      i % 4 === 0 ? JSON.stringify({ utm_source: "newsletter", utm_campaign: `c${i % 12}` }) : null,
      null,
      status === "pending" ? 0 : 1,
    ];
  }
}

/** Two sessions per account on average, on active accounts only; one in 20 already expired (the sweeper's work). */
function* sessions(p: Population, from: number, to: number): Iterable<unknown[]> {
  for (let k = 2 * from; k < 2 * to; k++) {
    let i = (k * 2_654_435_761) % p.accounts;
    // Neither inactive kind follows another (i % 50 === 3 and i % 20 === 7 never meet at i and i + 1).
    if (seededStatus(i) !== "active") i = (i + 1) % p.accounts;
    const created = p.now - (k % 30) * DAY - (k % 3600) * 1000;
    const expired = k % 20 === 0;
    yield [
      hex(32),
      p.ids[i],
      created,
      expired ? created : p.now - (k % 600) * 1000,
      expired ? p.now - (k % 1000) * 1000 - 1000 : created + 30 * DAY + DAY,
      `10.${(k >> 16) & 255}.${(k >> 8) & 255}.${k & 255}`,
      pick(AGENTS, k),
      created,
      passwordless(i) ? "social" : "password",
      passwordless(i) ? pick(PROVIDERS, i) : null,
      null,
      randomUUID(),
      1,
      passwordless(i) ? "fed" : "pwd",
      created,
      null,
      pick(COUNTRIES, k),
    ];
  }
}

/** Ten security events per account, over the last two years (some older than the 400-day retention). */
function* audit(p: Population, from: number, to: number): Iterable<unknown[]> {
  for (let i = from; i < to; i++)
    for (let e = 0; e < 10; e++) {
      const n = i * 10 + e;
      yield [
        randomUUID(),
        p.now - ((n * 104_729) % (730 * 86_400)) * 1000,
        pick(ACTIVITY_KINDS, n),
        p.ids[i],
        `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
        pick(AGENTS, n),
        n % 9 === 0 ? "password" : null,
        pick(COUNTRIES, n),
      ];
    }
}

/** A grant, its refresh token and its access token per granting account; one grant in 10 has expired. */
function* oidcModels(p: Population, from: number, to: number): Iterable<unknown[]> {
  for (let i = from; i < to; i++) {
    if (!hasGrant(i)) continue;
    const grantId = randomUUID();
    const clientId = pick(CLIENTS, i);
    const iat = Math.floor((p.now - (i % 300) * DAY) / 1000);
    const expiresAt = i % 10 === 1 ? p.now - 1000 : (iat + 365 * 86_400) * 1000;
    const scope = "openid email profile offline_access";
    const grant = {
      kind: "Grant",
      jti: grantId,
      accountId: p.ids[i],
      clientId,
      iat,
      exp: expiresAt / 1000,
      openid: { scope },
    };
    yield ["Grant", grantId, JSON.stringify(grant), null, null, null, null, expiresAt, null, p.ids[i], iat * 1000];
    for (const model of ["RefreshToken", "AccessToken"]) {
      const id = randomBytes(32).toString("base64url");
      const token = { kind: model, jti: id, grantId, accountId: p.ids[i], clientId, iat, scope };
      const tokenExpires = model === "AccessToken" ? (iat + 3600) * 1000 : expiresAt;
      yield [model, id, JSON.stringify(token), null, grantId, null, null, tokenExpires, null, null, iat * 1000];
    }
  }
}

function* externalIdentities(p: Population, from: number, to: number): Iterable<unknown[]> {
  for (let i = from; i < to; i++)
    if (hasIdentity(i))
      yield [pick(PROVIDERS, i), `${100_000_000 + i}`, p.ids[i], seededEmail(i), p.now - (i % 500) * DAY];
}

/** An authenticator app's secret, sealed as factors/totp.ts seals it, under the bench's SESSION_SECRET. */
function* totpFactors(p: Population, from: number, to: number): Iterable<unknown[]> {
  for (let i = from; i < to; i++)
    if (hasFactor(i)) {
      const secret = newTotpSecret();
      yield [p.ids[i], sealSecret(SEED_SESSION_SECRET, p.ids[i] as string, secret), p.now - DAY, 0, p.now - 2 * DAY];
    }
}

function* recoveryCodes(p: Population, from: number, to: number): Iterable<unknown[]> {
  for (let i = from; i < to; i++)
    if (hasFactor(i))
      for (let c = 0; c < 10; c++) yield [sha256(hex(8)), p.ids[i], p.now - DAY, c === 0 ? p.now : null];
}

/** The activation code each pending account was mailed; half of them have expired. */
function* codes(p: Population, from: number, to: number): Iterable<unknown[]> {
  for (let i = from; i < to; i++)
    if (seededStatus(i) === "pending") {
      const created = p.now - (i % 2 === 0 ? 60 * DAY : 3_600_000);
      yield [randomUUID(), p.ids[i], "activation", sha256(hex(16)), created, created + 7 * DAY, null, null];
    }
}

const columns = (list: string) => list.split(/\s+/u).filter(Boolean);

/** Every seeded table, users first (the others refer to them). */
export function seedTables(p: Population): TableRows[] {
  return [
    {
      table: "users",
      columns: columns(`id email email_normalized password_hash first_name last_name country_code newsletter status
        customer_number password_allowed required_password_update required_profile_update language brand created_at
        updated_at signup_meta marketing_info email_verified`),
      rows: (from, to) => users(p, from, to),
    },
    {
      table: "sessions",
      columns: columns(`id user_id created_at last_seen_at expires_at ip user_agent auth_time auth_method idp
        pending_step sign_in_id linked amr fresh_at host country`),
      rows: (from, to) => sessions(p, from, to),
    },
    {
      table: "audit",
      columns: columns("id at event user_id ip user_agent detail country"),
      rows: (from, to) => audit(p, from, to),
    },
    {
      table: "oidc_models",
      columns: columns(
        "model id payload uid grant_id user_code gateway_session_id expires_at consumed_at account_id issued_at",
      ),
      rows: (from, to) => oidcModels(p, from, to),
    },
    {
      table: "external_identities",
      columns: columns("provider subject user_id email linked_at"),
      rows: (from, to) => externalIdentities(p, from, to),
    },
    {
      table: "totp_factors",
      columns: columns("user_id secret_sealed confirmed_at last_step created_at"),
      rows: (from, to) => totpFactors(p, from, to),
    },
    {
      table: "recovery_codes",
      columns: columns("code_hash user_id created_at used_at"),
      rows: (from, to) => recoveryCodes(p, from, to),
    },
    {
      table: "codes",
      columns: columns("id user_id purpose code_hash created_at expires_at used_at superseded_at"),
      rows: (from, to) => codes(p, from, to),
    },
  ];
}
