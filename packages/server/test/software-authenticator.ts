/**
 * A software WebAuthn authenticator for tests and the bench (issue #26): P-256 keys from node:crypto, "none"
 * attestation, discoverable credentials, and flags and counters a test can set — so the server's real ceremonies
 * run end to end without a browser. It signs exactly what an authenticator signs (WebAuthn L3 §6.1, §6.3.3): the
 * authenticator data, then the SHA-256 of the client data JSON.
 */
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from "node:crypto";
import { isoBase64URL, isoCBOR } from "@simplewebauthn/server/helpers";

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_BE = 0x08;
const FLAG_BS = 0x10;
const FLAG_AT = 0x40;

/** What the server's options say (the fields an authenticator reads). */
interface CreationOptions {
  challenge: string;
  rp: { id?: string };
  user: { id: string };
}
interface RequestOptions {
  challenge: string;
  rpId?: string;
  allowCredentials?: { id: string }[];
}

export interface SoftCredential {
  id: string;
  rpId: string;
  userHandle: string;
  privateKey: KeyObject;
  counter: number;
}

const sha256 = (data: Uint8Array | string) => createHash("sha256").update(data).digest();
const b64 = (bytes: Uint8Array) => isoBase64URL.fromBuffer(new Uint8Array(bytes));

function clientData(type: "webauthn.create" | "webauthn.get", challenge: string, origin: string): Buffer {
  return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
}

function counterBytes(counter: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(counter >>> 0);
  return bytes;
}

export class SoftAuthenticator {
  readonly credentials: SoftCredential[] = [];
  /** The user-verified flag it sets (a fingerprint or PIN given); false: presence only. */
  userVerified = true;
  /** A synced passkey (backup eligible and backed up), as a password manager's. */
  synced = false;
  /** The origin the browser would report (the page's): a phishing page's origin in a test. */
  origin: string;
  constructor(origin: string) {
    this.origin = origin;
  }

  private flags(extra: number): number {
    return FLAG_UP | (this.userVerified ? FLAG_UV : 0) | (this.synced ? FLAG_BE | FLAG_BS : 0) | extra;
  }

  /** navigator.credentials.create: a new discoverable credential, answered as RegistrationResponseJSON. */
  create(options: CreationOptions, rpId = options.rp.id ?? new URL(this.origin).hostname) {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const jwk = publicKey.export({ format: "jwk" });
    const cose = isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, isoBase64URL.toBuffer(jwk.x as string)],
        [-3, isoBase64URL.toBuffer(jwk.y as string)],
      ]),
    );
    const rawId = randomBytes(32);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(rawId.length);
    const authData = Buffer.concat([
      sha256(rpId),
      Buffer.from([this.flags(FLAG_AT)]),
      counterBytes(0),
      Buffer.alloc(16),
      idLength,
      rawId,
      Buffer.from(cose),
    ]);
    const attestationObject = isoCBOR.encode(
      new Map<string, string | Map<string, string> | Uint8Array>([
        ["fmt", "none"],
        ["attStmt", new Map<string, string>()],
        ["authData", new Uint8Array(authData)],
      ]),
    );
    const credential: SoftCredential = { id: b64(rawId), rpId, userHandle: options.user.id, privateKey, counter: 0 };
    this.credentials.push(credential);
    return {
      id: credential.id,
      rawId: credential.id,
      response: {
        clientDataJSON: b64(clientData("webauthn.create", options.challenge, this.origin)),
        attestationObject: b64(attestationObject),
        transports: ["internal" as const],
      },
      clientExtensionResults: {},
      type: "public-key" as const,
    };
  }

  /**
   * navigator.credentials.get: an assertion by `credential` (else the first one allowed, else the first held),
   * its counter moved on by `step` (0 or less: a counter that does not move forward, as a clone's would).
   */
  get(options: RequestOptions, use: { credential?: SoftCredential; step?: number } = {}) {
    const allowed = options.allowCredentials?.map((c) => c.id) ?? [];
    const credential =
      use.credential ??
      this.credentials.find((c) => allowed.length === 0 || allowed.includes(c.id)) ??
      this.credentials[0];
    if (!credential) throw new Error("the software authenticator holds no credential");
    credential.counter += use.step ?? 1;
    const rpId = options.rpId ?? credential.rpId;
    const authData = Buffer.concat([sha256(rpId), Buffer.from([this.flags(0)]), counterBytes(credential.counter)]);
    const data = clientData("webauthn.get", options.challenge, this.origin);
    const signature = sign("sha256", Buffer.concat([authData, sha256(data)]), credential.privateKey);
    return {
      id: credential.id,
      rawId: credential.id,
      response: {
        clientDataJSON: b64(data),
        authenticatorData: b64(authData),
        signature: b64(signature),
        userHandle: credential.userHandle,
      },
      clientExtensionResults: {},
      type: "public-key" as const,
    };
  }
}
