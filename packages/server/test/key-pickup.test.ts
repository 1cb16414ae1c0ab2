/**
 * Issue #28: nodes pick up a signing-key rotation by themselves within SIGNING_KEYS_REFRESH_S, without a restart;
 * the key that starts signing was already in every node's JWKS, so a token signed by it verifies at every node at
 * once. Two app instances on one database, on SQLite and PostgreSQL.
 */
import { randomUUID } from "node:crypto";
import { decodeProtectedHeader, type JSONWebKeySet } from "jose";
import { afterEach, expect, it, vi } from "vitest";
import { createUser } from "../src/accounts/users.ts";
import { rotateSigningKeys } from "../src/oidc/keys.ts";
import { oidcKeysStore } from "../src/store/oidc-keys.ts";
import { desktopGrant, desktopTokens } from "./desktop-sign-in.ts";
import { Client, describeDatabases, freshPostgres, startServer, type TestServer, tempDir } from "./harness.ts";

const PASSWORD = "quiet harbour lantern 42";

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(databaseUrl: string): Promise<TestServer> {
  const server = await startServer({ databaseUrl, env: { TRUST_PROXY: "true", SIGNING_KEYS_REFRESH_S: "1" } });
  servers.push(server);
  return server;
}

const publishedKids = async (server: TestServer) =>
  ((await (await fetch(`${server.url}/oidc/jwks`)).json()) as JSONWebKeySet).keys.map((key) => key.kid);

/** The kid of the ES256 key in a state (access tokens are ES256: oidc/keys.ts). */
async function es256Kid(server: TestServer, state: "current" | "next"): Promise<string> {
  const row = (await oidcKeysStore.all(server.app.db)).find(
    (key) => key.state === state && JSON.parse(key.public_jwk).alg === "ES256",
  );
  if (!row) throw new Error(`no ${state} ES256 key`);
  return row.kid;
}

/** A desktop app's refresh token for a new person signed in at `server`. */
async function refreshToken(server: TestServer): Promise<string> {
  const email = `${randomUUID()}@example.com`;
  await createUser(server.app.db, {
    email,
    password: PASSWORD,
    firstName: "Ann",
    lastName: "Lee",
    countryCode: "DE",
    emailVerified: true,
  });
  const browser = await new Client(server.url, { "x-forwarded-for": "198.51.100.28" }).start();
  expect((await browser.login(email, PASSWORD)).status).toBe(200);
  return (await desktopTokens(browser, [server.url], server.url, "openid offline_access api")).refresh_token;
}

describeDatabases([
  ["SQLite", async () => `sqlite:${tempDir()}/keys.db`],
  ["PostgreSQL", freshPostgres],
])("signing keys rotated under running nodes on %s", (_name, url) => {
  it("are picked up by every node within the interval; the new key was published before any node signed with it", async () => {
    const databaseUrl = await url();
    const a = await start(databaseUrl);
    const b = await start(databaseUrl);
    const oldKid = await es256Kid(a, "current");
    const newKid = await es256Kid(a, "next");
    let token = await refreshToken(a);
    // Before the rotation both nodes publish the key that will sign next.
    for (const node of [a, b]) expect(await publishedKids(node)).toContain(newKid);

    const rotated = await rotateSigningKeys(a.app.db, a.config.sessionSecret);
    expect(rotated.signing).toContain(newKid);

    // No restart: each node signs with the new key within SIGNING_KEYS_REFRESH_S (1 s here).
    for (const node of [a, b]) {
      await vi.waitFor(
        async () => {
          const tokens = await desktopGrant(node.url, { grant_type: "refresh_token", refresh_token: token });
          token = tokens.refresh_token;
          const kid = decodeProtectedHeader(tokens.access_token).kid;
          // Whatever a node signs with is in both nodes' JWKS at that moment.
          for (const other of [a, b]) expect(await publishedKids(other)).toContain(kid);
          expect(kid).toBe(newKid);
        },
        { timeout: 10_000, interval: 200 },
      );
    }
    // Both now publish the new waiting keys too, and still the old one, to verify what it signed.
    const [nextAfter] = rotated.next;
    for (const node of [a, b]) {
      await vi.waitFor(async () => expect(await publishedKids(node)).toContain(nextAfter), { timeout: 10_000 });
      expect(await publishedKids(node)).toContain(oldKid);
    }
  });
});
