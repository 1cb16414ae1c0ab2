import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAdmin } from "../src/admin/cli.ts";
import {
  ensureSigningKeys,
  KeyDecryptionError,
  keyEncryptionKey,
  loadSigningKeys,
  openJwk,
  sealJwk,
} from "../src/oidc/keys.ts";
import { type Db, migrate, openDatabase } from "../src/store/db.ts";
import { oidcKeysStore } from "../src/store/oidc-keys.ts";
import { tempDir } from "./harness.ts";

const SECRET = "a-session-secret-for-the-keys-test-1234";

describe("the provider's signing keys", () => {
  const env = { DATABASE_URL: `sqlite:${tempDir()}/keys.db`, SESSION_SECRET: SECRET };
  let db: Db;
  beforeAll(async () => {
    db = openDatabase(env.DATABASE_URL).db;
    await migrate(db);
  });
  afterAll(() => db.destroy());

  const states = async () =>
    Object.fromEntries((await oidcKeysStore.all(db)).map((row) => [row.kid, row.state])) as Record<string, string>;

  it("are made at first start (signing and waiting, an RS256 and an ES256 key each) and only then", async () => {
    await ensureSigningKeys(db, SECRET);
    await ensureSigningKeys(db, SECRET);
    expect(Object.values(await states()).sort()).toEqual(["current", "current", "next", "next"]);
    const algs = (await oidcKeysStore.all(db)).map((row) => `${row.state} ${JSON.parse(row.public_jwk).alg}`);
    expect(algs.sort()).toEqual(["current ES256", "current RS256", "next ES256", "next RS256"]);
  });

  it("keep their private parts encrypted at rest, bound to their kid", async () => {
    const [row] = await oidcKeysStore.all(db);
    if (!row) throw new Error("no key");
    const [loaded] = (await loadSigningKeys(db, SECRET)).filter((key) => key.kid === row.kid);
    expect(loaded?.d).toMatch(/^[A-Za-z0-9_-]{43,}$/u); // an EC or an RSA private exponent
    expect(row.private_jwk).not.toContain(loaded?.d);
    expect(row.private_jwk).not.toContain('"d"');
    expect(JSON.parse(row.public_jwk)).not.toHaveProperty("d");
    // Another secret, another row's kid, or a changed byte: refused, never a wrong key.
    expect(() => openJwk(keyEncryptionKey("another-secret-of-enough-length-000000"), row.kid, row.private_jwk)).toThrow(
      KeyDecryptionError,
    );
    expect(() => openJwk(keyEncryptionKey(SECRET), "another-kid", row.private_jwk)).toThrow(KeyDecryptionError);
    const sealed = sealJwk(keyEncryptionKey(SECRET), "k", { d: "secret" });
    const [iv, tag, data] = sealed.split(".");
    const flipped = Buffer.from(data ?? "", "base64url");
    flipped[0] = (flipped[0] ?? 0) ^ 1; // one bit of the ciphertext, whatever its letters
    const tampered = [iv, tag, flipped.toString("base64url")].join(".");
    expect(() => openJwk(keyEncryptionKey(SECRET), "k", tampered)).toThrow(KeyDecryptionError);
    expect(openJwk(keyEncryptionKey(SECRET), "k", sealed)).toEqual({ d: "secret" });
  });

  it("rotate with the admin command: next signs, current is kept to verify, previous goes, new keys wait", async () => {
    const before = await states();
    const kidsIn = (all: Record<string, string>, state: string) => Object.keys(all).filter((kid) => all[kid] === state);
    const current = kidsIn(before, "current");
    const next = kidsIn(before, "next");
    const first = await runAdmin(["keys:rotate"], env);
    expect(first).toMatchObject({ code: 0, out: expect.stringContaining("signing keys are now") });
    const after = await states();
    expect(kidsIn(after, "current").sort()).toEqual([...next].sort());
    expect(kidsIn(after, "previous").sort()).toEqual([...current].sort());
    expect(Object.values(after).sort()).toEqual(["current", "current", "next", "next", "previous", "previous"]);
    // The provider signs with the first key of each algorithm: the current ones; the others are published to verify.
    const keys = await loadSigningKeys(db, SECRET);
    expect(keys.map((key) => after[key.kid ?? ""])).toEqual([
      "current",
      "current",
      "next",
      "next",
      "previous",
      "previous",
    ]);

    await runAdmin(["keys:rotate"], env);
    const third = await states();
    for (const kid of current) expect(third[kid]).toBeUndefined(); // dropped after two rotations
    for (const kid of next) expect(third[kid]).toBe("previous");
    expect(Object.values(third).sort()).toEqual(["current", "current", "next", "next", "previous", "previous"]);
  });

  it("refuse to rotate under another SESSION_SECRET, leaving the keys as they were", async () => {
    const before = await states();
    const refused = await runAdmin(["keys:rotate"], {
      ...env,
      SESSION_SECRET: "another-secret-of-enough-length-000000",
    });
    expect(refused).toMatchObject({ code: 1, out: expect.stringContaining("cannot be decrypted") });
    expect(await states()).toEqual(before);
  });
});

describe("a start under another SESSION_SECRET", () => {
  it("stops with a clear message instead of signing with keys it cannot read", async () => {
    const databaseUrl = `sqlite:${tempDir()}/other.db`;
    const { db } = openDatabase(databaseUrl);
    await migrate(db);
    await ensureSigningKeys(db, SECRET);
    await db.destroy();
    const { buildApp } = await import("../src/app.ts");
    const { loadConfig } = await import("../src/config.ts");
    const config = loadConfig({
      NODE_ENV: "test",
      DATABASE_URL: databaseUrl,
      SESSION_SECRET: "another-secret-of-enough-length-000000",
      LOG_LEVEL: "silent",
    });
    await expect(buildApp(config, { logger: false })).rejects.toThrow(
      /SESSION_SECRET: signing key .* cannot be decrypted/u,
    );
  });
});
