import { randomBytes } from "node:crypto";
import { securityApi as api } from "@gatehouse/contract/security";
import * as oidc from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../src/store/db.ts";
import { oidcStore } from "../src/store/oidc.ts";
import { Client, expectErrorObject, useMailServer } from "./harness.ts";
import {
  Browser,
  codeRequest,
  createPerson,
  discover,
  type OidcServer,
  PASSWORD,
  startOidcServer,
} from "./oidc-harness.ts";

/**
 * Issue #27, an attacker's review of the security page's endpoints: each test here failed before its fix (the
 * commit that adds it says which), and stays so the hole does not come back.
 */
const DESKTOP_CALLBACK = "http://127.0.0.1:49152/callback";
const NEW_PASSWORD = "Another-Long-Passphrase-93!";
/** More offline grants than one statement may name twice on SQLite (32,766 parameters: ids and grant ids). */
const MANY_GRANTS = 17_000;

/** A grant as the provider's adapter stores it (oidc/adapter.ts): the account's, offline, for `clientId`. */
async function seedOfflineGrants(db: Db, accountId: string, clientId: string, count: number) {
  const now = Date.now();
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < count; i++) {
      const id = randomBytes(32).toString("base64url");
      const payload = { accountId, clientId, iat: Math.floor(now / 1000), openid: { scope: "openid offline_access" } };
      await oidcStore.upsert(trx, {
        model: "Grant",
        id,
        payload: JSON.stringify(payload),
        uid: null,
        grantId: null,
        userCode: null,
        gatewaySessionId: null,
        accountId,
        expiresAt: now + 86_400_000,
        issuedAt: now,
      });
    }
  });
}

describe("someone holding the password makes tens of thousands of offline grants (SQLite)", () => {
  let server: OidcServer;
  let desktop: oidc.Configuration;

  beforeAll(async () => {
    server = await startOidcServer([
      {
        client_id: "enscape",
        client_name: "Enscape",
        application_type: "native",
        redirect_uris: ["http://127.0.0.1/callback"],
        brand: "archviz",
        first_party: true,
      },
    ]);
    desktop = await discover(server, "enscape");
  });
  afterAll(async () => server?.close());

  // The provider makes a grant per client and provider session, and nothing limits the sign-ins to a site
  // (service_login/finish has no rate limit): a thief scripts them. A statement naming every grant then exceeds the
  // database's parameters, and the person's password change, "Sign out everywhere else" and the apps list fail.
  it("the person's password change still ends them all, and the apps list and removal still answer", async () => {
    const person = await createPerson(server.app);
    const browser = new Browser(server);
    await browser.signIn(person.email);
    const request = await codeRequest(desktop, DESKTOP_CALLBACK, { scope: "openid offline_access", prompt: "consent" });
    const real = await oidc.authorizationCodeGrant(desktop, await browser.authorize(request.url), request.checks);
    await seedOfflineGrants(server.app.db, person.id, "enscape", MANY_GRANTS);

    const apps = await browser.get("/api/account/apps");
    expect(apps.status, apps.text).toBe(200);
    expect(apps.json.apps).toEqual([expect.objectContaining({ name: "Enscape", offline: true })]);

    const changed = await browser.post("/api/account/change_password", {
      oldPassword: PASSWORD,
      password: NEW_PASSWORD,
    });
    expect(changed.status, changed.text).toBe(200);
    expect(await oidcStore.grantIdsOf(server.app.db, person.id)).toEqual([]);
    await expect(oidc.refreshTokenGrant(desktop, real.refresh_token ?? "")).rejects.toMatchObject({
      error: "invalid_grant",
    });

    // Removing one app's access names all its grants too.
    await seedOfflineGrants(server.app.db, person.id, "enscape", MANY_GRANTS);
    const [entry] = (await browser.get("/api/account/apps")).json.apps as { id: string }[];
    const removed = await browser.request("DELETE", `/api/account/apps/${entry?.id}`);
    expect(removed.status, removed.text).toBe(200);
    expect(await oidcStore.grantIdsOf(server.app.db, person.id)).toEqual([]);
  }, 120_000);

  it("another person's grant id, and variants of the person's own (case, prefix, suffix), answer 404", async () => {
    const person = await createPerson(server.app);
    const browser = new Browser(server);
    await browser.signIn(person.email);
    const request = await codeRequest(desktop, DESKTOP_CALLBACK, { scope: "openid offline_access", prompt: "consent" });
    const tokens = await oidc.authorizationCodeGrant(desktop, await browser.authorize(request.url), request.checks);
    const [entry] = (await browser.get("/api/account/apps")).json.apps as { id: string }[];
    const id = entry?.id ?? "";
    const thief = new Browser(server);
    await thief.signIn((await createPerson(server.app)).email);
    expectErrorObject(await thief.request("DELETE", `/api/account/apps/${id}`), 404, "not_found");
    const swapped = [...id].map((ch) => (ch === ch.toUpperCase() ? ch.toLowerCase() : ch.toUpperCase())).join("");
    for (const variant of [swapped, id.slice(0, -1), `${id}A`, `${id.slice(0, 20)}%25`]) {
      expectErrorObject(await browser.request("DELETE", `/api/account/apps/${variant}`), 404, "not_found");
    }
    // Still there, and still working.
    expect(await oidcStore.grantIdsOf(server.app.db, person.id)).toEqual([id]);
    await oidc.refreshTokenGrant(desktop, tokens.refresh_token ?? "");
  });
});

describe("the new-browser mail (SQLite)", () => {
  const fx = useMailServer();
  let ip = 0;
  const browser = () => new Client(fx.server.url, { "x-forwarded-for": `203.0.113.${(++ip % 250) + 1}` }).start();

  // Every browser without a device cookie is a new one: a thief with the password who signs in from fresh cookie
  // jars, from as many addresses as the sign-in rate limit asks, had no limit on the mails the person receives.
  it("cannot be made to flood the person's mailbox: a few a day, then the browsers are learnt silently", async () => {
    const person = await createPerson(fx.server.app);
    for (let i = 0; i < 15; i++) {
      const answer = await (await browser()).login(person.email, PASSWORD);
      expect(answer.status, answer.text).toBe(200);
    }
    const mails = await fx.server.app.db
      .selectFrom("outbox")
      .select("id")
      .where("user_id", "=", person.id)
      .where("kind", "=", "new_browser_sign_in")
      .execute();
    expect(mails.length).toBeGreaterThan(0);
    expect(mails.length).toBeLessThanOrEqual(5);
    const known = await fx.server.app.db
      .selectFrom("known_browsers")
      .select("device_id")
      .where("user_id", "=", person.id)
      .execute();
    expect(known).toHaveLength(15);
  });
});

describe("the contract of the security page's calls", () => {
  const fx = useMailServer();

  // An id longer than any entry's is refused by the params schema (400): the contract must say so, or the
  // OpenAPI document promises a client answers it never gets and hides the one it does.
  it("declares every status removing an app's access answers", async () => {
    const person = await createPerson(fx.server.app);
    const c = await new Client(fx.server.url, { "x-forwarded-for": "198.51.100.7" }).start();
    expect((await c.login(person.email, PASSWORD)).status).toBe(200);
    const answer = await c.request("DELETE", `/api/account/apps/${"a".repeat(129)}`);
    expectErrorObject(answer, 400, "invalid_request");
    expect(api.securityAppRevoke.statuses).toContain(answer.status);
  });
});

/** What the review tried that held: kept as tests so it keeps holding. */
describe("what an attacker tries that holds (SQLite)", () => {
  const fx = useMailServer();
  let ip = 0;
  const signedIn = async (email: string) => {
    const c = await new Client(fx.server.url, { "x-forwarded-for": `192.0.2.${(++ip % 250) + 1}` }).start();
    expect((await c.login(email, PASSWORD)).status).toBe(200);
    return c;
  };
  const entries = async (c: Client) =>
    (await c.get("/api/account/sessions")).json.sessions as { id: string; current: boolean }[];

  it("another person's session handle, and every variant of the person's own, answers 404 and ends nothing", async () => {
    const ann = await createPerson(fx.server.app);
    const bob = await createPerson(fx.server.app);
    const annHere = await signedIn(ann.email);
    const annThere = await signedIn(ann.email);
    const bobHere = await signedIn(bob.email);
    const target = (await entries(annHere)).find((entry) => !entry.current)?.id;
    if (!target) throw new Error("no other entry");
    const flipped = target.replace(/[a-z]/u, (ch) => ch.toUpperCase()).replace(/^[A-Z]/u, (ch) => ch.toLowerCase());
    const variants = [
      target.slice(0, 21),
      `${target}A`,
      target === flipped ? `${target.slice(0, 21)}_` : flipped,
      encodeURIComponent(`${target} `),
      `${target.slice(0, 11)}%2F${target.slice(12)}`,
      "A".repeat(22),
      "end-others",
    ];
    for (const variant of variants) {
      expectErrorObject(await bobHere.request("DELETE", `/api/account/sessions/${target}`), 404, "not_found");
      expectErrorObject(await annHere.request("DELETE", `/api/account/sessions/${variant}`), 404, "not_found");
    }
    expect((await annThere.get("/api/account/sessions")).status).toBe(200);
    expect(await entries(annHere)).toHaveLength(2);
  });

  it("refuses every forged cursor of the three lists with 400, never a 5xx", async () => {
    const ann = await createPerson(fx.server.app);
    const c = await signedIn(ann.email);
    const b64 = (text: string) => Buffer.from(text).toString("base64url");
    const cursors = [
      "-1",
      b64("-1:AAAAAAAAAAAAAAAAAAAAAA"),
      b64(`${"9".repeat(15)}:${"A".repeat(22)}`),
      b64(`${"9".repeat(16)}.${"-".repeat(36)}`),
      b64(`${"9".repeat(15)}.${"é".repeat(40)}`),
      b64(`1.${"x".repeat(150)}`),
      encodeURIComponent("☃🙂"),
      "%FF%FE",
      "%00",
      "=".repeat(200),
    ];
    for (const list of ["sessions", "apps", "activity"]) {
      for (const cursor of cursors) {
        const answer = await c.get(`/api/account/${list}?cursor=${cursor}`);
        expect([200, 400], `${list} ${cursor}: ${answer.text}`).toContain(answer.status);
      }
    }
    // Another list's cursor is not the sessions list's (the apps list reads an activity cursor as a place in the
    // person's own apps, which shows nothing it would not show anyway).
    const activity = b64(`${Date.now()}.${crypto.randomUUID()}`);
    expectErrorObject(await c.get(`/api/account/sessions?cursor=${activity}`), 400, "invalid_request");
  });

  it("refuses the changes without the session's own CSRF token (another session's is not it)", async () => {
    const ann = await createPerson(fx.server.app);
    const c = await signedIn(ann.email);
    const mallory = await signedIn((await createPerson(fx.server.app)).email);
    const stolen = { "x-csrf-token": mallory.csrf ?? "" };
    const [entry] = await entries(c);
    for (const [method, path] of [
      ["DELETE", `/api/account/sessions/${entry?.id}`],
      ["POST", "/api/account/sessions/end-others"],
      ["DELETE", "/api/account/apps/some-grant"],
    ] as const) {
      expectErrorObject(await c.request(method, path, undefined, { "x-csrf-token": "" }), 403, "csrf_invalid");
      expectErrorObject(await c.request(method, path, undefined, stolen), 403, "csrf_invalid");
    }
    expect(await entries(c)).toHaveLength(1);
  });

  it("rate-limits every new call, and answers none of them without a session", async () => {
    const names = [
      "securitySessions",
      "securitySessionEnd",
      "securitySessionsEndOthers",
      "securityApps",
      "securityAppRevoke",
      "securityActivity",
    ] as const;
    const anonymous = await new Client(fx.server.url, { "x-forwarded-for": "192.0.2.254" }).start();
    for (const name of names) {
      expect(api[name].rateLimit, name).toMatch(/^security(Read|Change)$/u);
      const path = `/api${api[name].path.replace("{id}", "x")}`;
      expectErrorObject(await anonymous.request(api[name].method, path), 401, "not_authenticated");
    }
  });
});
