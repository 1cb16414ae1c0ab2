import { createCipheriv, createDecipheriv, generateKeyPair, hkdfSync, randomBytes } from "node:crypto";
import { promisify } from "node:util";
import type { FastifyBaseLogger } from "fastify";
import type Provider from "oidc-provider";
import initializeKeyStore from "oidc-provider/lib/helpers/initialize_keystore.js";
import { type Db, exclusively, logFailure } from "../store/db.ts";
import { oidcKeysStore } from "../store/oidc-keys.ts";
import type { OidcKeyRow, OidcKeyState } from "../store/schema.ts";

const generate = promisify(generateKeyPair);

/** RS256 signs ID tokens: every OpenID Connect relying party must accept it (OIDC Core §15.1). */
export const ID_TOKEN_ALG = "RS256";
/**
 * ES256 signs the API's access tokens (RFC 9068 leaves the algorithm to the server; every JWT library verifies
 * it): a tenth of an RSA signature's cost on the refresh path (docs/decisions.md "Refresh-grant throughput").
 */
export const ACCESS_TOKEN_ALG = "ES256";
/** NIST SP 800-57: 2048-bit RSA holds to 2030; a rotation replaces it long before. */
const RSA_BITS = 2048;
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A private JWK as `node:crypto` exports it, with the fields the provider reads. */
export type PrivateJwk = Record<string, string>;

/**
 * The key that encrypts the signing keys at rest (AES-256-GCM, ASVS 11.3.2), derived from SESSION_SECRET with
 * HKDF-SHA256 under its own label, so it is never the secret itself nor any other key derived from it
 * (docs/decisions.md "Signing keys").
 */
export function keyEncryptionKey(sessionSecret: string): Buffer {
  return Buffer.from(hkdfSync("sha256", sessionSecret, "gatehouse", "oidc signing keys at rest", KEY_BYTES));
}

/** iv.tag.ciphertext, base64url; the kid is the additional data, so a ciphertext cannot be moved to another row. */
export function sealJwk(kek: Buffer, kid: string, jwk: PrivateJwk): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", kek, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(kid));
  const sealed = Buffer.concat([cipher.update(JSON.stringify(jwk), "utf8"), cipher.final()]);
  return [iv, cipher.getAuthTag(), sealed].map((part) => part.toString("base64url")).join(".");
}

export class KeyDecryptionError extends Error {}

export function openJwk(kek: Buffer, kid: string, sealed: string): PrivateJwk {
  const [iv, tag, data] = sealed.split(".").map((part) => Buffer.from(part, "base64url"));
  try {
    if (!iv || !tag || !data) throw new Error("malformed");
    const decipher = createDecipheriv("aes-256-gcm", kek, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(kid));
    decipher.setAuthTag(tag);
    return JSON.parse(Buffer.concat([decipher.update(data), decipher.final()]).toString("utf8")) as PrivateJwk;
  } catch {
    throw new KeyDecryptionError(
      `signing key ${kid} cannot be decrypted: SESSION_SECRET is not the one it was stored under`,
    );
  }
}

/** One key of a state: an RSA key for RS256 or a P-256 key for ES256, its private part sealed. */
async function newKeyRow(
  kek: Buffer,
  state: OidcKeyState,
  alg: typeof ID_TOKEN_ALG | typeof ACCESS_TOKEN_ALG,
  now: number,
) {
  const { privateKey, publicKey } =
    alg === ID_TOKEN_ALG
      ? await generate("rsa", { modulusLength: RSA_BITS })
      : await generate("ec", { namedCurve: "P-256" });
  const kid = randomBytes(16).toString("base64url");
  const common = { kid, alg, use: "sig" };
  const publicJwk = { ...publicKey.export({ format: "jwk" }), ...common };
  const privateJwk = { ...privateKey.export({ format: "jwk" }), ...common } as PrivateJwk;
  return {
    kid,
    state,
    public_jwk: JSON.stringify(publicJwk),
    private_jwk: sealJwk(kek, kid, privateJwk),
    created_at: now,
    updated_at: now,
  } satisfies OidcKeyRow;
}

/** A state's keys: one for each algorithm the provider signs with. */
function newKeyRows(kek: Buffer, state: OidcKeyState, now: number): Promise<OidcKeyRow[]> {
  return Promise.all([newKeyRow(kek, state, ID_TOKEN_ALG, now), newKeyRow(kek, state, ACCESS_TOKEN_ALG, now)]);
}

/** The states every rotation keeps filled: one key waiting, one signing. */
const REQUIRED_STATES: readonly OidcKeyState[] = ["current", "next"];

/**
 * Makes sure a signing key and its successor exist (first start). Nodes starting together take turns (issue #14):
 * each node signs with the newest current key it read at start and publishes only the keys it read, so were two to
 * add a current key at once, one node's tokens would carry a key the other's JWKS lacks.
 */
export async function ensureSigningKeys(db: Db, sessionSecret: string, now = Date.now()): Promise<void> {
  const kek = keyEncryptionKey(sessionSecret);
  await exclusively(db, "signing-keys", async (trx) => {
    const present = new Set((await oidcKeysStore.all(trx)).map((row) => row.state));
    for (const state of REQUIRED_STATES) {
      if (present.has(state)) continue;
      for (const row of await newKeyRows(kek, state, now)) await oidcKeysStore.insert(trx, row);
    }
  });
}

/**
 * Rotation (`npm run admin -- keys:rotate`): the waiting key starts signing, the signing one is kept only to
 * verify what it signed, the one kept before is dropped, and a new key waits. Every node publishes the waiting
 * key before it signs anything, so a node that has not yet picked up the rotation (watchSigningKeys, within
 * SIGNING_KEYS_REFRESH_S) still verifies — and relying parties that cached the JWKS still know — every key that
 * signs. Run it less often than the longest JWT lifetime passes (OIDC_TTL_S), so what the dropped key signed has
 * expired, and never twice within SIGNING_KEYS_REFRESH_S (the new waiting key must be published first).
 */
export async function rotateSigningKeys(
  db: Db,
  sessionSecret: string,
  now = Date.now(),
): Promise<{ signing: string[]; next: string[]; dropped: string[] }> {
  const kek = keyEncryptionKey(sessionSecret);
  const fresh = await newKeyRows(kek, "next", now);
  // Two rotations at once would each demote and promote what they read: they take turns, as the first start does.
  return exclusively(db, "signing-keys", async (trx) => {
    const rows = await oidcKeysStore.all(trx);
    for (const row of rows) openJwk(kek, row.kid, row.private_jwk); // refuse to rotate under the wrong secret
    const inState = (state: OidcKeyState) => rows.filter((row) => row.state === state).map((row) => row.kid);
    const dropped = inState("previous");
    for (const kid of dropped) await oidcKeysStore.delete(trx, kid);
    for (const kid of inState("current")) await oidcKeysStore.setState(trx, kid, "previous", now);
    let signing = inState("next");
    if (signing.length === 0) {
      // Nothing was waiting (a database from before keys were made in pairs): a new pair signs at once.
      const made = await newKeyRows(kek, "current", now);
      for (const row of made) await oidcKeysStore.insert(trx, row);
      signing = made.map((row) => row.kid);
    }
    for (const kid of signing) await oidcKeysStore.setState(trx, kid, "current", now);
    for (const row of fresh) await oidcKeysStore.insert(trx, row);
    return { signing, next: fresh.map((row) => row.kid), dropped };
  });
}

const STATE_ORDER: Record<OidcKeyState, number> = { current: 0, next: 1, previous: 2 };

/**
 * The provider's key set: the signing keys first (the provider signs with the first key of an algorithm), the
 * newest current ones if several; then the waiting and the previous keys, published for verification only.
 */
export async function loadSigningKeys(db: Db, sessionSecret: string): Promise<PrivateJwk[]> {
  const kek = keyEncryptionKey(sessionSecret);
  const rows = (await oidcKeysStore.all(db)).sort(
    (a, b) => STATE_ORDER[a.state] - STATE_ORDER[b.state] || b.created_at - a.created_at,
  );
  return rows.map((row) => openJwk(kek, row.kid, row.private_jwk));
}

/**
 * Issue #28: makes `keys` the provider's key set in place, as its constructor does with `jwks` (the library's own
 * loader validates them), so a running node signs with the newest current key and publishes the others without a
 * restart. Everything that signs or serves the JWKS reads the key set at each use.
 */
export function useSigningKeys(provider: Provider, keys: PrivateJwk[]): void {
  initializeKeyStore.call(provider, { keys });
}

/** The key set's identity: its kids in the provider's order (the first of each algorithm signs). */
const keySetOf = (keys: PrivateJwk[]) => keys.map((key) => key.kid).join(" ");

/**
 * Issue #28: reads the signing keys every `everyMs` (SIGNING_KEYS_REFRESH_S) and gives the provider the new set
 * when a rotation changed it, so every node signs with the new key within that time of `keys:rotate`. The key
 * that starts signing was published as the waiting key since the rotation before, so every node, and every relying
 * party's cached JWKS, already verifies it. A failed read (the database away) keeps the keys in use.
 */
export function watchSigningKeys(options: {
  db: Db;
  sessionSecret: string;
  provider: Provider;
  keys: PrivateJwk[];
  everyMs: number;
  log: FastifyBaseLogger;
}): { refresh: () => Promise<boolean>; stop: () => void } {
  const { db, sessionSecret, provider, log } = options;
  let inUse = keySetOf(options.keys);
  let reading: Promise<boolean> | undefined;
  const read = async (): Promise<boolean> => {
    const keys = await loadSigningKeys(db, sessionSecret);
    const set = keySetOf(keys);
    if (set === inUse) return false;
    useSigningKeys(provider, keys);
    inUse = set;
    log.info({ kids: set }, "signing keys picked up");
    return true;
  };
  /** One read at a time; answers whether the keys changed. */
  const refresh = () => {
    reading ??= read().finally(() => {
      reading = undefined;
    });
    return reading;
  };
  const timer = setInterval(() => {
    refresh().catch((err) => logFailure(log, err, "signing keys not read"));
  }, options.everyMs);
  timer.unref();
  return { refresh, stop: () => clearInterval(timer) };
}
