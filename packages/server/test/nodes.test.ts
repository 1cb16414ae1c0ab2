/**
 * Several nodes on one PostgreSQL (issue #14): three Gatehouse processes share the run's PostgreSQL server, and a
 * browser, a desktop app and an attacker move between them as a load balancer would send them.
 */
import { randomBytes } from "node:crypto";
import { LOCKOUT_THRESHOLD } from "@gatehouse/contract";
import { createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_RESOURCE, desktopGrant, desktopTokens } from "./desktop-sign-in.ts";
import { Client, expectErrorObject, freshPostgres } from "./harness.ts";
import { admin, type GatehouseNode, startNode } from "./nodes.ts";
import { solveBotCheck } from "./pow.ts";
import { TestSmtp } from "./smtp.ts";

const PASSWORD = "quiet harbour lantern 42";

let databaseUrl: string;
let smtp: TestSmtp;
let nodes: GatehouseNode[];
let addresses = 0;
/** Each browser comes from its own address (TRUST_PROXY), so per-address limits stay out of the way. */
const browser = (node: GatehouseNode) =>
  new Client(node.url, { "x-forwarded-for": `10.14.${Math.floor(++addresses / 250)}.${addresses % 250}` });

beforeAll(async () => {
  databaseUrl = await freshPostgres();
  smtp = await new TestSmtp().start();
  const env = { DATABASE_URL: databaseUrl, SMTP_URL: smtp.url, TRUST_PROXY: "true" };
  // Started together on an empty database: each runs the migrations at start, and they must agree (issue #14).
  nodes = await Promise.all([startNode(env), startNode(env), startNode(env)]);
}, 90_000);

afterAll(async () => {
  await Promise.all((nodes ?? []).map((node) => node.stop()));
  await smtp?.stop();
});

/** An account made with the admin command line; `flags` add to it (`--must-change-password`). */
function person(...flags: string[]): string {
  const email = `n${randomBytes(5).toString("hex")}@example.com`;
  admin(
    databaseUrl,
    "user:create",
    "--email",
    email,
    "--password",
    PASSWORD,
    "--first",
    "Noor",
    "--last",
    "Haddad",
    "--country",
    "JO",
    ...flags,
  );
  return email;
}

/** `node` by its letter: A, B, C. */
const node = (letter: "A" | "B" | "C") => nodes["ABC".indexOf(letter)] as GatehouseNode;

/** The desktop app's sign-in, each hop of the browser on the next node in `route`, the code exchanged at `tokenAt`. */
const desktopOnNodes = (c: Client, route: GatehouseNode[], tokenAt: GatehouseNode) =>
  desktopTokens(
    c,
    route.map((at) => at.url),
    tokenAt.url,
    "openid offline_access api",
  );

const refresh = (at: GatehouseNode, token: string) =>
  desktopGrant(at.url, { grant_type: "refresh_token", refresh_token: token });

/** Verifies an access token with the key set one node publishes (as the brand's API does). */
async function verifiedAt(at: GatehouseNode, token: string) {
  const jwks = (await (await fetch(`${at.url}/oidc/jwks`)).json()) as JSONWebKeySet;
  const { payload } = await jwtVerify(token, createLocalJWKSet(jwks), { audience: API_RESOURCE });
  return payload;
}

describe("three nodes on one PostgreSQL", () => {
  it("ran each migration once although all three started together on an empty database", async () => {
    const pg = await import("pg");
    const client = new pg.default.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query("select name, count(*)::int as n from kysely_migration group by name");
      expect(rows.length).toBeGreaterThan(10);
      expect(rows.every((row) => row.n === 1)).toBe(true);
    } finally {
      await client.end();
    }
  });

  it("holds a sign-in attempt on one node that another finishes: the step on B opens the session A and C see", async () => {
    const email = person("--must-change-password");
    const c = browser(node("A"));
    await c.start();
    expect((await c.login(email, PASSWORD)).json.next.kind).toBe("step");
    c.base = node("B").url;
    expect((await c.get("/api/sign-in/attempt")).json.owes).toBe("password_change");
    const changed = await c.post("/api/account/change_password", {
      oldPassword: PASSWORD,
      password: "Copper-Lantern-91!",
    });
    expect(changed.json.next.kind).toBe("landing");
    c.base = node("C").url;
    expect((await c.get("/api/session")).json.Email).toBe(email);
  });

  it("signs in on one node, uses the session on another, takes a token from a third and refreshes it on the first", async () => {
    const email = person();
    const c = browser(node("A"));
    await c.start();
    expect((await c.login(email, PASSWORD)).status).toBe(200);
    // The session and its CSRF token, made on A, are B's too: a read and a state-changing call.
    c.base = node("B").url;
    const session = await c.get("/api/session");
    expect(session.status).toBe(200);
    expect(session.json.Email).toBe(email);
    const profile = await c.get("/api/account/profile");
    const saved = await c.request("PUT", "/api/account/profile", { ...profile.json, firstName: "Noor" });
    expect(saved.status, saved.text).toBe(200);
    // The provider's interaction hops from node to node; C exchanges the code, A and then B refresh.
    const tokens = await desktopOnNodes(c, [node("C"), node("A"), node("B")], node("C"));
    expect((await verifiedAt(node("A"), tokens.access_token)).sub).toBeTruthy();
    const first = await refresh(node("A"), tokens.refresh_token);
    const second = await refresh(node("B"), first.refresh_token);
    expect((await verifiedAt(node("C"), second.access_token)).sub).toBe(
      (await verifiedAt(node("B"), tokens.access_token)).sub,
    );
    // The rotated-away refresh token is spent everywhere, not only on the node that rotated it.
    await expect(refresh(node("C"), tokens.refresh_token)).rejects.toThrow(/invalid_grant/u);
    // Signing out on C ends the session that A opened, for every node.
    c.base = node("C").url;
    expect((await c.post("/api/account/logout")).status).toBe(200);
    c.base = node("A").url;
    expect((await c.get("/api/session")).status).toBe(204);
  });

  it("counts a block across nodes: wrong passwords spread over all three block the account on each", async () => {
    const email = person();
    for (let i = 1; i < LOCKOUT_THRESHOLD; i++) {
      const at = nodes[i % 3] as GatehouseNode;
      expectErrorObject(
        await (await browser(at).start()).login(email, "wrong password"),
        401,
        "invalid_authentication",
      );
    }
    expectErrorObject(
      await (await browser(node("A")).start()).login(email, "wrong password"),
      429,
      "user_temporarily_blocked",
    );
    for (const at of nodes)
      expectErrorObject(await (await browser(at).start()).login(email, PASSWORD), 429, "user_temporarily_blocked");
  });

  it("sends one activation mail per registration with every node's mail worker running", async () => {
    const emails = Array.from({ length: 24 }, (_, i) => `reg${i}-${randomBytes(4).toString("hex")}@example.com`);
    const answers = await Promise.all(
      emails.map(async (email, i) => {
        const c = await browser(nodes[i % 3] as GatehouseNode).start();
        return c.post("/api/account/register", {
          email,
          password: PASSWORD,
          firstName: "Ines",
          lastName: "Varga",
          countryCode: "pt",
          newsletterSubscription: false,
          botCheck: await solveBotCheck(c),
        });
      }),
    );
    for (const answer of answers) expect(answer.status, answer.text).toBe(200);
    for (const email of emails) await smtp.waitFor(email, 30_000);
    // Every worker has had passes since: a second copy would have been sent by now.
    await new Promise((r) => setTimeout(r, 3_000));
    for (const email of emails) expect(smtp.received.filter((m) => m.to.includes(email))).toHaveLength(1);
  });

  it("keeps serving while the signing keys rotate and the nodes restart one after another", async () => {
    const email = person();
    const c = browser(node("A"));
    await c.start();
    expect((await c.login(email, PASSWORD)).status).toBe(200);
    const before = await desktopOnNodes(c, [node("A")], node("A"));
    const oldKid = decodeProtectedHeader(before.access_token).kid;

    admin(databaseUrl, "keys:rotate");
    // Whether or not a node has picked up the rotation yet (issue #28: within SIGNING_KEYS_REFRESH_S, key-pickup.test.ts),
    // every node verifies the other nodes' tokens.
    const stillOld = await refresh(node("B"), before.refresh_token);
    for (const at of nodes) await verifiedAt(at, stillOld.access_token);

    // A rolling restart: while one node is down the others serve; each restarted node signs with the new key,
    // which the nodes not yet restarted already publish.
    let token = stillOld.refresh_token;
    for (const letter of ["A", "B", "C"] as const) {
      const index = "ABC".indexOf(letter);
      const old = nodes[index] as GatehouseNode;
      await old.stop();
      const other = nodes[(index + 1) % 3] as GatehouseNode;
      const meanwhile = await refresh(other, token);
      token = meanwhile.refresh_token;
      nodes[index] = await startNode({ DATABASE_URL: databaseUrl, SMTP_URL: smtp.url, TRUST_PROXY: "true" });
      const fresh = await refresh(nodes[index] as GatehouseNode, token);
      token = fresh.refresh_token;
      expect(decodeProtectedHeader(fresh.access_token).kid).not.toBe(oldKid);
      for (const at of nodes) {
        await verifiedAt(at, fresh.access_token);
        await verifiedAt(at, stillOld.access_token);
      }
    }
  });
});
