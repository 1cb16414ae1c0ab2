import { randomUUID } from "node:crypto";
import { SECURITY_PAGE_SIZE } from "@gatehouse/contract";
import { createLocalJWKSet, type JSONWebKeySet, jwtVerify } from "jose";
import * as oidc from "openid-client";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type StandInForum, startStandInForum } from "../../../scripts/forum/stand-in.ts";
import { runAdmin } from "../src/admin/cli.ts";
import { SESSIONS_ENDED_JOB } from "../src/events/sessions-ended.ts";
import { BACKCHANNEL_LOGOUT_JOB } from "../src/oidc/sessions.ts";
import { endSignIn } from "../src/security/sessions.ts";
import { openSession, sessionId } from "../src/sessions/sessions.ts";
import type { Db } from "../src/store/db.ts";
import { jobsStore } from "../src/store/jobs.ts";
import { oidcStore } from "../src/store/oidc.ts";
import {
  Client,
  describeDatabases,
  expectErrorObject,
  expectSameTiming,
  freshPostgres,
  startServer,
  type TestServer,
} from "./harness.ts";
import { BRAND, CENTRAL, Browser as HostBrowser } from "./host-browser.ts";
import {
  Browser,
  codeFlowTokens,
  codeRequest,
  createPerson,
  discover,
  type OidcServer,
  PASSWORD,
  readJson,
  SITE_SECRET,
  startOidcServer,
} from "./oidc-harness.ts";
import { Listener } from "./oidc-loopback.ts";

const SESSIONS = "/api/account/sessions";
const END_OTHERS = "/api/account/sessions/end-others";
const FIREFOX = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0";
const HANDLE = /^[A-Za-z0-9_-]{22}$/u;
const NEW_PASSWORD = "Copper-Lantern-91!";
const FORUM_SECRET = "forum-shared-secret-0123";
const FORUM_KEY = "forum-admin-api-key";

interface Entry {
  id: string;
  device: { browser: string | null; os: string | null };
  country: string | null;
  startedAt: number;
  lastActiveAt: number;
  method: string;
  provider: string | null;
  hosts: string[];
  current: boolean;
}

describeDatabases([
  ["SQLite", async () => undefined],
  ["PostgreSQL", freshPostgres],
])("the security page's sessions (issue #27, %s)", (_name, database) => {
  let server: TestServer;
  let forum: StandInForum;
  let ip = 0;
  const db = (): Db => server.app.db;

  beforeAll(async () => {
    forum = await startStandInForum({ gatewayUrl: "http://localhost:8080", secret: FORUM_SECRET, apiKey: FORUM_KEY });
    const databaseUrl = await database();
    server = await startServer({
      env: {
        TRUST_PROXY: "true",
        LINKED_SESSIONS: "true",
        DISCOURSE_URL: forum.url,
        DISCOURSE_SECRET: FORUM_SECRET,
        DISCOURSE_API_KEY: FORUM_KEY,
        ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      },
      app: { jobIntervalMs: 50, jobFirstRetryMs: 50 },
    });
  });
  afterAll(async () => {
    await server.close();
    await forum.close();
  });

  /** A browser of its own address (the rate limits count by address), signed in as `email` on `base`. */
  async function browserOf(email: string, options: { base?: string; headers?: Record<string, string> } = {}) {
    const c = await new Client(options.base ?? server.url, {
      "x-forwarded-for": `203.0.113.${++ip}`,
      ...options.headers,
    }).start();
    const answer = await c.login(email, PASSWORD);
    if (answer.status !== 200) throw new Error(`sign-in failed: ${answer.status} ${answer.text}`);
    return c;
  }

  const tokenOf = (c: Client) => c.cookies.get("gh_session") ?? "";
  const entriesOf = async (c: Client): Promise<Entry[]> => {
    const answer = await c.get(SESSIONS);
    expect(answer.status).toBe(200);
    return answer.json.sessions;
  };
  const otherEntry = async (c: Client) => {
    const other = (await entriesOf(c)).find((entry) => !entry.current);
    if (!other) throw new Error("no other entry");
    return other;
  };
  const end = (c: Client, id: string, headers?: Record<string, string>) =>
    c.request("DELETE", `${SESSIONS}/${encodeURIComponent(id)}`, undefined, headers);
  const eventsOf = async (userId: string) =>
    (await db().selectFrom("audit").select("event").where("user_id", "=", userId).execute()).map((row) => row.event);
  const sessionsEndedJobsNaming = async (id: string) =>
    (await jobsStore.list(db(), SESSIONS_ENDED_JOB)).filter((job) => JSON.parse(job.payload).sessionIds.includes(id));

  it("lists one entry per sign-in: the linked sessions of a second brand host are one entry with both hosts", async () => {
    const person = await createPerson(server.app);
    const linked = new HostBrowser(server.app);
    await linked.signIn(CENTRAL, person.email);
    await linked.linkFrom(BRAND, CENTRAL, "/");
    expect(await linked.session(BRAND)).not.toBeNull();
    const firefox = await browserOf(person.email, { headers: { "user-agent": FIREFOX, "cf-ipcountry": "de" } });

    // Asked from the brand host: its entry is this browser's, and holds the central host's session too.
    const fromBrand = (await linked.request("GET", `${BRAND}${SESSIONS}`)).json.sessions as Entry[];
    expect(fromBrand).toHaveLength(2);
    expect(fromBrand[0]).toMatchObject({ current: true, hosts: ["cloud.localhost", "localhost"], method: "password" });
    expect(fromBrand[1]).toMatchObject({
      current: false,
      hosts: ["127.0.0.1"],
      country: "DE",
      method: "password",
      provider: null,
      device: { browser: "Firefox 133", os: "Windows 10" },
    });

    // The same entries seen from the other browser: the same handles, only "current" moves.
    const fromFirefox = await entriesOf(firefox);
    expect(fromFirefox.map((entry) => [entry.id, entry.current])).toEqual([
      [fromBrand[1]?.id, true],
      [fromBrand[0]?.id, false],
    ]);
    // Opaque handles: no stored id (a token's hash) or sign-in id leaves the server.
    const stored = await db()
      .selectFrom("sessions")
      .select(["id", "sign_in_id"])
      .where("user_id", "=", person.id)
      .execute();
    expect(stored).toHaveLength(3);
    for (const entry of fromFirefox) {
      expect(entry.id).toMatch(HANDLE);
      for (const row of stored) expect(JSON.stringify(row)).not.toContain(entry.id);
    }
    const first = fromFirefox[0] as Entry;
    expect(first.startedAt).toBeLessThanOrEqual(first.lastActiveAt);
  });

  it("pages through 45 sign-ins newest first, this browser first, with no duplicates or gaps; a bad cursor is 400", async () => {
    const person = await createPerson(server.app);
    const base = Date.now() - 60_000;
    for (let i = 0; i < 45; i++) {
      // Pairs share a last activity: the order is completed by the entry's id.
      const at = base - Math.floor(i / 2) * 1000;
      const record = { userId: person.id, method: "password" as const, amr: ["pwd"], authTime: at };
      await openSession(db(), record, { ip: "192.0.2.1", userAgent: FIREFOX, host: "localhost", country: "FR" }, at);
    }
    const me = await browserOf(person.email);

    const pages: Entry[][] = [];
    let cursor: string | null | undefined;
    do {
      const answer = await me.get(`${SESSIONS}${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ""}`);
      expect(answer.status).toBe(200);
      pages.push(answer.json.sessions);
      cursor = answer.json.nextCursor;
    } while (cursor && pages.length < 10);
    expect(pages.map((page) => page.length)).toEqual([SECURITY_PAGE_SIZE + 1, SECURITY_PAGE_SIZE, 5]);
    expect(pages[0]?.[0]?.current).toBe(true);
    const others = pages.flat().filter((entry) => !entry.current);
    expect(pages.flat().filter((entry) => entry.current)).toHaveLength(1);
    expect(new Set(others.map((entry) => entry.id)).size).toBe(45);
    const ordered = [...others].sort((a, b) => b.lastActiveAt - a.lastActiveAt || (a.id < b.id ? -1 : 1));
    expect(others.map((entry) => entry.id)).toEqual(ordered.map((entry) => entry.id));

    for (const bad of ["not-a-cursor", Buffer.from("1:short").toString("base64url"), "%00", "x".repeat(300)]) {
      expectErrorObject(await me.get(`${SESSIONS}?cursor=${encodeURIComponent(bad)}`), 400, "invalid_request");
    }
  });

  it("ending another browser's entry signs that browser out: its next call is 401", async () => {
    const person = await createPerson(server.app);
    const other = await browserOf(person.email);
    const me = await browserOf(person.email);
    const entry = await otherEntry(me);
    const otherId = sessionId(tokenOf(other));

    const ended = await end(me, entry.id);
    expect(ended.status).toBe(200);
    expectErrorObject(await other.get(SESSIONS), 401, "not_authenticated");
    expect((await other.get("/api/session")).status).toBe(204);
    // This browser stays signed in, and sees itself alone; the end is in the trail and queued for what follows.
    expect((await entriesOf(me)).map((e) => e.current)).toEqual([true]);
    expect(await eventsOf(person.id)).toContain("session_ended");
    expect(await sessionsEndedJobsNaming(otherId)).toHaveLength(1);
    // It reaches the forum as a sign-out, through its job (the forum's admin API asked for the person).
    await expect.poll(() => forum.apiCalls.some((call) => call.includes(person.id)), { timeout: 5_000 }).toBe(true);
    // Ended, it no longer exists.
    expectErrorObject(await end(me, entry.id), 404, "not_found");
  });

  it("ending another person's entry answers 404, as an unknown one does, and ends nothing", async () => {
    const victim = await createPerson(server.app);
    const victimBrowser = await browserOf(victim.email);
    const [victimEntry] = await entriesOf(victimBrowser);
    const attacker = await createPerson(server.app);
    const attackerBrowser = await browserOf(attacker.email);

    const theirs = expectErrorObject(await end(attackerBrowser, victimEntry?.id ?? ""), 404, "not_found");
    const unknown = expectErrorObject(await end(attackerBrowser, "A".repeat(22)), 404, "not_found");
    expect(Object.keys(theirs).sort()).toEqual(Object.keys(unknown).sort());
    expect(theirs.message).toBe(unknown.message);
    // An id no handle can be is refused by the contract's check, never a 5xx.
    expectErrorObject(await end(attackerBrowser, "A".repeat(200)), 400, "invalid_request");
    // Nor does the time tell them apart (the person's own sign-ins are read and compared either way).
    const victims = [victimEntry?.id ?? ""];
    for (let i = 0; i < 6; i++) {
      const other = await createPerson(server.app);
      victims.push(((await entriesOf(await browserOf(other.email)))[0] as Entry).id);
    }
    const unknowns = victims.map((_, i) => `${"B".repeat(21)}${i}`);
    await expectSameTiming(async (handle) => () => end(attackerBrowser, handle), victims, unknowns);
    expect((await victimBrowser.get(SESSIONS)).status).toBe(200);
    expect((await entriesOf(attackerBrowser)).map((entry) => entry.current)).toEqual([true]);
  });

  it("ending this browser's own entry is a sign-out: the cookie turns anonymous", async () => {
    const person = await createPerson(server.app);
    const me = await browserOf(person.email);
    const before = tokenOf(me);
    const [own] = await entriesOf(me);
    expect(own?.current).toBe(true);
    expect((await end(me, own?.id ?? "")).status).toBe(200);
    expect(tokenOf(me)).not.toBe(before);
    expect((await me.get("/api/session")).status).toBe(204);
    expect(await db().selectFrom("sessions").select("id").where("user_id", "=", person.id).execute()).toEqual([]);
  });

  it("signing out everywhere else keeps this browser signed in, ends the rest and revokes the account's offline grants", async () => {
    const person = await createPerson(server.app);
    const others = [await browserOf(person.email), await browserOf(person.email)];
    const me = await browserOf(person.email);
    // An app's offline grant and its refresh token (what a desktop app holds): gone with the other sign-ins.
    const grantId = randomUUID();
    const now = Date.now();
    const row = { uid: null, userCode: null, gatewaySessionId: null, expiresAt: null, issuedAt: now };
    await oidcStore.upsert(db(), {
      ...row,
      model: "Grant",
      id: grantId,
      payload: JSON.stringify({
        accountId: person.id,
        clientId: "enscape",
        openid: { scope: "openid offline_access" },
      }),
      grantId: null,
      accountId: person.id,
    });
    // A grant of this browser's session only (no offline_access): it ends with its provider session, not here.
    const sessionGrant = randomUUID();
    await oidcStore.upsert(db(), {
      ...row,
      model: "Grant",
      id: sessionGrant,
      payload: JSON.stringify({ accountId: person.id, clientId: "enscape", openid: { scope: "openid email" } }),
      grantId: null,
      accountId: person.id,
    });
    await oidcStore.upsert(db(), {
      ...row,
      model: "RefreshToken",
      id: randomUUID(),
      payload: JSON.stringify({ grantId, accountId: person.id, scope: "openid offline_access" }),
      grantId,
      accountId: null,
    });

    const answer = await me.post(END_OTHERS);
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ ended: 2 });
    for (const other of others) expectErrorObject(await other.get(SESSIONS), 401, "not_authenticated");
    expect((await entriesOf(me)).map((entry) => entry.current)).toEqual([true]);
    expect(await oidcStore.grantIdsOf(db(), person.id)).toEqual([sessionGrant]);
    const left = await db().selectFrom("oidc_models").select("id").where("grant_id", "=", grantId).execute();
    expect(left).toEqual([]);
    expect(await eventsOf(person.id)).toContain("signed_out_elsewhere");
    // Nothing else to end: none.
    expect((await me.post(END_OTHERS)).json).toEqual({ ended: 0 });
  });

  it("refuses the DELETE and the POST without the CSRF token (403), ending nothing", async () => {
    const person = await createPerson(server.app);
    const other = await browserOf(person.email);
    const me = await browserOf(person.email);
    const entry = await otherEntry(me);
    expectErrorObject(await end(me, entry.id, { "x-csrf-token": "" }), 403, "csrf_invalid");
    expectErrorObject(await me.request("POST", END_OTHERS, {}, { "x-csrf-token": "forged" }), 403, "csrf_invalid");
    expect((await other.get(SESSIONS)).status).toBe(200);
    expect(await entriesOf(me)).toHaveLength(2);
  });

  it("an entry ended on one node is ended on another (two instances, one database)", async () => {
    const second = await startServer({
      env: { TRUST_PROXY: "true", LINKED_SESSIONS: "true", DATABASE_URL: server.config.databaseUrl },
    });
    try {
      const person = await createPerson(server.app);
      const there = await browserOf(person.email, { base: second.url });
      expect((await there.get(SESSIONS)).status).toBe(200);
      const here = await browserOf(person.email);
      expect((await end(here, (await otherEntry(here)).id)).status).toBe(200);
      expectErrorObject(await there.get(SESSIONS), 401, "not_authenticated");
    } finally {
      await second.close();
    }
  });

  it("queues what follows an end in the transaction that ends it: rolled back, neither happened", async () => {
    const person = await createPerson(server.app);
    const other = await browserOf(person.email);
    const me = await browserOf(person.email);
    const otherId = sessionId(tokenOf(other));
    const handle = (await otherEntry(me)).id;
    const own = await db()
      .selectFrom("sessions")
      .select(["id", "sign_in_id"])
      .where("id", "=", sessionId(tokenOf(me)))
      .executeTakeFirstOrThrow();
    const viewer = {
      userId: person.id,
      sessionId: own.id,
      signInId: own.sign_in_id,
      sessionSecret: server.config.sessionSecret,
    };

    // A crash after the end's statements and before the commit (a transaction that throws).
    await expect(
      db()
        .transaction()
        .execute(async (trx) => {
          expect(await endSignIn(trx, viewer, handle)).toBe("ended");
          throw new Error("crash before the commit");
        }),
    ).rejects.toThrow("crash before the commit");
    expect(await sessionsEndedJobsNaming(otherId)).toEqual([]);
    expect((await other.get(SESSIONS)).status).toBe(200);

    // Committed, both are there.
    expect(
      await db()
        .transaction()
        .execute((trx) => endSignIn(trx, viewer, handle)),
    ).toBe("ended");
    expect(await sessionsEndedJobsNaming(otherId)).toHaveLength(1);
    expectErrorObject(await other.get(SESSIONS), 401, "not_authenticated");
  });

  it("disabling from the command line writes the end of the person's sessions for the gateway's worker", async () => {
    const person = await createPerson(server.app);
    const signedIn = await browserOf(person.email);
    const id = sessionId(tokenOf(signedIn));
    const env = { DATABASE_URL: server.config.databaseUrl, SESSION_SECRET: server.config.sessionSecret };
    expect((await runAdmin(["user:disable", "--email", person.email], env)).code).toBe(0);
    // Written in the disabling's transaction by another process; this node's worker runs it.
    await expect
      .poll(async () => (await sessionsEndedJobsNaming(id)).map((job) => job.status), { timeout: 5_000 })
      .toEqual(["done"]);
    expectErrorObject(await signedIn.get(SESSIONS), 401, "not_authenticated");
  });
});

describeDatabases([
  ["SQLite", async () => undefined],
  ["PostgreSQL", freshPostgres],
])("ending a session ends its sites' sessions through the job queue (issue #27, %s)", (_name, database) => {
  const CALLBACK = "https://site.example/cb";
  let server: OidcServer;
  let backchannel: Listener;
  let refusals = 1;
  let site: oidc.Configuration;

  beforeAll(async () => {
    // The site's first back-channel answer is an error (a restart, an outage): the job must ask again.
    backchannel = await Listener.start(() => (refusals-- > 0 ? 503 : 200));
    const databaseUrl = await database();
    server = await startOidcServer(
      [
        {
          client_id: "site",
          client_secret: SITE_SECRET,
          redirect_uris: [CALLBACK],
          backchannel_logout_uri: `http://127.0.0.1:${backchannel.port}/logout`,
          backchannel_logout_session_required: true,
          first_party: true,
        },
      ],
      { ...(databaseUrl ? { databaseUrl } : {}), app: { jobIntervalMs: 50, jobFirstRetryMs: 50 } },
    );
    site = await discover(server, "site", SITE_SECRET);
  });
  afterAll(async () => {
    await server.close();
    await backchannel.close();
  });

  it("sends the site its logout token even when the first post fails, and revokes the session's tokens", async () => {
    const person = await createPerson(server.app);
    const elsewhere = new Browser(server);
    await elsewhere.signIn(person.email);
    const request = await codeRequest(site, CALLBACK);
    const tokens = await oidc.authorizationCodeGrant(site, await elsewhere.authorize(request.url), request.checks);
    const me = new Browser(server);
    await me.signIn(person.email);

    const entries = (await me.get(SESSIONS)).json.sessions as Entry[];
    const other = entries.find((entry) => !entry.current);
    expect((await me.request("DELETE", `${SESSIONS}/${other?.id}`)).status).toBe(200);

    await expect.poll(() => backchannel.received.length, { timeout: 10_000 }).toBe(2);
    const jwks = createLocalJWKSet((await readJson(await fetch(`${server.issuer}/jwks`))) as JSONWebKeySet);
    for (const post of backchannel.received) {
      const token = new URLSearchParams(post.body).get("logout_token") ?? "";
      const { payload } = await jwtVerify(token, jwks, { issuer: server.issuer, audience: "site" });
      expect(payload).toMatchObject({ sub: person.id, sid: tokens.claims()?.sid });
    }
    const logoutJobs = async () => jobsStore.list(server.app.db, BACKCHANNEL_LOGOUT_JOB);
    await expect.poll(async () => (await logoutJobs()).map((job) => job.status), { timeout: 5_000 }).toEqual(["done"]);
    expect((await logoutJobs())[0]).toMatchObject({ attempts: 1 });
    // The session's grant did not persist logout: its tokens are gone with it.
    expect(await oidc.tokenIntrospection(site, tokens.access_token)).toMatchObject({ active: false });
  });

  it("a password change ends the sites of the other sign-ins, and keeps those of the browser that changed it", async () => {
    const person = await createPerson(server.app);
    const siteTokensOf = async (browser: Browser) => (await codeFlowTokens(site, CALLBACK, browser)).tokens;
    const elsewhere = new Browser(server);
    await elsewhere.signIn(person.email);
    const theirs = await siteTokensOf(elsewhere);
    const me = new Browser(server);
    await me.signIn(person.email);
    const mine = await siteTokensOf(me);
    const before = backchannel.received.length;

    const changed = await me.post("/api/account/change_password", { oldPassword: PASSWORD, password: NEW_PASSWORD });
    expect(changed.status).toBe(200);
    const logout = await backchannel.next(before);
    const token = new URLSearchParams(logout.body).get("logout_token") ?? "";
    const jwks = createLocalJWKSet((await readJson(await fetch(`${server.issuer}/jwks`))) as JSONWebKeySet);
    const { payload } = await jwtVerify(token, jwks, { issuer: server.issuer, audience: "site" });
    expect(payload).toMatchObject({ sub: person.id, sid: theirs.claims()?.sid });
    expect(await oidc.tokenIntrospection(site, theirs.access_token)).toMatchObject({ active: false });
    // The job named this browser's session too (read before the change): still live, it was left alone.
    await expect
      .poll(async () => (await jobsStore.list(server.app.db, SESSIONS_ENDED_JOB)).every((job) => job.status === "done"))
      .toBe(true);
    expect(await oidc.tokenIntrospection(site, mine.access_token)).toMatchObject({ active: true });
    expect(backchannel.received.slice(before)).toHaveLength(1);
  });
});
