import { createHmac, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { DELETION_TTL_MS, PASSWORD_RESET_TTL_MS } from "@gatehouse/contract";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type StandInForum, startStandInForum } from "../../../scripts/forum/stand-in.ts";
import { createUser, deleteUser, disableUser } from "../src/accounts/users.ts";
import { runAdmin } from "../src/admin/cli.ts";
import { issueCode } from "../src/codes/codes.ts";
import { forumLogOut } from "../src/forum/sign-out.ts";
import { auditStore } from "../src/store/audit.ts";
import { openDatabase } from "../src/store/db.ts";
import { jobsStore } from "../src/store/jobs.ts";
import { sessionsStore } from "../src/store/sessions.ts";
import {
  Client,
  describeDatabases,
  expectErrorObject,
  freshPostgres,
  startServer,
  type TestServer,
  tempDir,
} from "./harness.ts";
import { createPerson, PASSWORD } from "./oidc-harness.ts";

/**
 * Issue #13: a DiscourseConnect client written here from the protocol (discourse/discourse
 * `lib/discourse_connect_base.rb`): `sso` is Base64 of a query, `sig` the hex HMAC-SHA256 of that Base64 text.
 * Nothing of the server's code is used to make or check the messages.
 */
const SECRET = "forum-shared-secret-0123";
const API_KEY = "forum-admin-api-key";
const NEW_PASSWORD = "Copper-Lantern-91!";

const hmac = (text: string, secret = SECRET) => createHmac("sha256", secret).update(text).digest("hex");

/** The forum's request: `nonce` and `return_sso_url`, Base64 with Ruby's line breaks, signed. */
function forumRequest(fields: Record<string, string>, options: { lineBreaks?: boolean } = {}) {
  const base64 = Buffer.from(new URLSearchParams(fields).toString()).toString("base64");
  const sso = options.lineBreaks === false ? base64 : `${(base64.match(/.{1,60}/gu) ?? []).join("\n")}\n`;
  return { sso, sig: hmac(sso) };
}

const ssoPath = (query: { sso: string; sig: string }) =>
  `/api/discourse/sso?${new URLSearchParams({ sso: query.sso, sig: query.sig })}`;

/** Reads our answer as the forum does: the signature over the Base64 text, then its fields. */
function readAnswer(loginUrl: string) {
  const url = new URL(loginUrl);
  const sso = url.searchParams.get("sso") ?? "";
  const sig = url.searchParams.get("sig") ?? "";
  return {
    url,
    signatureValid: sig === hmac(sso),
    fields: Object.fromEntries(new URLSearchParams(Buffer.from(sso, "base64").toString("utf8"))),
  };
}

describeDatabases([["SQLite"]])("DiscourseConnect provider (issue #13)", () => {
  let forum: StandInForum;
  let server: TestServer;
  let returnUrl: string;
  const nonce = () => randomBytes(16).toString("hex");

  beforeAll(async () => {
    forum = await startStandInForum({ gatewayUrl: "http://localhost:8080", secret: SECRET, apiKey: API_KEY });
    server = await startServer({
      env: { DISCOURSE_URL: forum.url, DISCOURSE_SECRET: SECRET, DISCOURSE_API_KEY: API_KEY },
      app: { jobIntervalMs: 50, jobFirstRetryMs: 50 },
    });
    returnUrl = `${forum.url}/session/sso_login`;
  });
  afterAll(async () => {
    await server.close();
    await forum.close();
  });

  async function signedIn(overrides: { emailVerified?: boolean } = {}) {
    const person = await createPerson(server.app, overrides);
    const client = await new Client(server.url).start();
    expect((await client.login(person.email, PASSWORD)).status).toBe(200);
    return { person, client };
  }

  it("answers a signed-in person with the forum's address and a signed answer echoing the nonce", async () => {
    const { person, client } = await signedIn();
    const sent = nonce();
    const answer = await client.get(ssoPath(forumRequest({ nonce: sent, return_sso_url: returnUrl })));
    expect(answer.status).toBe(200);
    expect(answer.headers.get("cache-control")).toBe("no-store");
    const { url, signatureValid, fields } = readAnswer(answer.json.loginUrl);
    expect(url.origin + url.pathname).toBe(returnUrl);
    expect(signatureValid).toBe(true);
    expect(fields).toMatchObject({ nonce: sent, email: person.email, external_id: person.id, name: "Ann Lee" });
    expect(fields.username).toMatch(/^[A-Za-z0-9][A-Za-z0-9_.-]{1,18}[A-Za-z0-9]$/u);
    expect(fields).not.toHaveProperty("require_activation");
    // The sign-in elsewhere is in the person's audit trail.
    const events = await auditStore.list(server.app.db, 10, person.id);
    expect(events.map((e) => [e.event, e.detail])).toContainEqual(["signed_in_elsewhere", `forum (${forum.url})`]);
  });

  it("round-trips through the forum stand-in, which accepts the answer and signs the person in", async () => {
    const { person, client } = await signedIn();
    const request = forum.request();
    const answer = await client.get(ssoPath(request));
    const back = await fetch(answer.json.loginUrl, { redirect: "manual" });
    expect(back.status).toBe(302);
    expect(forum.signIns.at(-1)?.fields).toMatchObject({ nonce: request.nonce, external_id: person.id });
    expect(forum.users.get(person.id)).toMatchObject({ email: person.email, active: true });
  });

  it("sends an unproven address only with require_activation=true", async () => {
    const { client } = await signedIn({ emailVerified: false });
    const answer = await client.get(ssoPath(forumRequest({ nonce: nonce(), return_sso_url: returnUrl })));
    expect(readAnswer(answer.json.loginUrl).fields.require_activation).toBe("true");
  });

  it("answers a visitor 401 and keeps the nonce for after the sign-in", async () => {
    const request = forumRequest({ nonce: nonce(), return_sso_url: returnUrl });
    const visitor = await new Client(server.url).start();
    expectErrorObject(await visitor.get(ssoPath(request)), 401, "not_authenticated");
    const { client } = await signedIn();
    expect((await client.get(ssoPath(request))).status).toBe(200);
  });

  it("refuses a replayed nonce, also from another session", async () => {
    const { client } = await signedIn();
    const request = forumRequest({ nonce: nonce(), return_sso_url: returnUrl });
    expect((await client.get(ssoPath(request))).status).toBe(200);
    expectErrorObject(await client.get(ssoPath(request)), 400, "discourse_nonce_used");
    const other = await signedIn();
    expectErrorObject(await other.client.get(ssoPath(request)), 400, "discourse_nonce_used");
    // Two at once: one answer.
    const racing = forumRequest({ nonce: nonce(), return_sso_url: returnUrl });
    const statuses = await Promise.all([client.get(ssoPath(racing)), other.client.get(ssoPath(racing))]);
    expect(statuses.map((a) => a.status).sort()).toEqual([200, 400]);
  });

  it("refuses a tampered or foreign signature, for visitors too", async () => {
    const { client } = await signedIn();
    const request = forumRequest({ nonce: nonce(), return_sso_url: returnUrl });
    const flipped = request.sig.replace(/^./u, (c) => (c === "0" ? "1" : "0"));
    expectErrorObject(await client.get(ssoPath({ ...request, sig: flipped })), 400, "discourse_signature_invalid");
    expectErrorObject(
      await client.get(ssoPath({ ...request, sig: request.sig.toUpperCase() })),
      400,
      "discourse_signature_invalid",
    );
    expectErrorObject(
      await client.get(ssoPath({ ...request, sig: request.sig.slice(0, 63) })),
      400,
      "discourse_signature_invalid",
    );
    const otherSecret = { sso: request.sso, sig: hmac(request.sso, "another-secret-entirely") };
    expectErrorObject(await client.get(ssoPath(otherSecret)), 400, "discourse_signature_invalid");
    // A payload changed after signing.
    const changed = forumRequest({ nonce: nonce(), return_sso_url: "https://evil.example/" });
    expectErrorObject(
      await client.get(ssoPath({ sso: changed.sso, sig: request.sig })),
      400,
      "discourse_signature_invalid",
    );
    const visitor = await new Client(server.url).start();
    expectErrorObject(await visitor.get(ssoPath({ ...request, sig: flipped })), 400, "discourse_signature_invalid");
  });

  it("refuses a return_sso_url off the forum's exact origin", async () => {
    const { client } = await signedIn();
    const forumUrl = new URL(forum.url);
    const port = Number(forumUrl.port);
    const foreign = [
      "https://evil.example/session/sso_login",
      `http://localhost:${port}/session/sso_login`,
      `https://127.0.0.1:${port}/session/sso_login`,
      `http://127.0.0.1:${port + 1}/session/sso_login`,
      `http://127.0.0.1/session/sso_login`,
      `http://127.0.0.1:${port}@evil.example/session/sso_login`,
      `http://user@127.0.0.1:${port}/session/sso_login`,
      `http://evil.example\\@127.0.0.1:${port}/`,
      `http://127.0.0.1:${port}.evil.example/`,
      `//127.0.0.1:${port}/session/sso_login`,
      "/session/sso_login",
      `javascript:alert(1)//127.0.0.1:${port}`,
      ` ${returnUrl}`,
    ];
    for (const return_sso_url of foreign) {
      const answer = await client.get(ssoPath(forumRequest({ nonce: nonce(), return_sso_url })));
      expect([answer.status, answer.json?.error_code, return_sso_url]).toEqual([
        400,
        "discourse_return_url_invalid",
        return_sso_url,
      ]);
    }
  });

  it("refuses malformed Base64 and missing or doubled fields", async () => {
    const { client } = await signedIn();
    const signed = (sso: string) => ({ sso, sig: hmac(sso) });
    const payloads = [
      signed("not base64!"),
      signed("bm9uY2U9YWJj"), // "nonce=abc" without return_sso_url
      signed(Buffer.from(`return_sso_url=${encodeURIComponent(returnUrl)}`).toString("base64")),
      signed(Buffer.from(`nonce=&return_sso_url=${encodeURIComponent(returnUrl)}`).toString("base64")),
      signed(Buffer.from(`nonce=a&nonce=b&return_sso_url=${encodeURIComponent(returnUrl)}`).toString("base64")),
      signed("bm9uY2U9YWJj="), // wrong padding
      signed("bm9uY2U9YWJjJnJldHVybl9zc29fdXJsPQ"), // missing padding
      signed(Buffer.from([0xff, 0xfe, 0x00, 0x41]).toString("base64")), // not UTF-8
    ];
    for (const query of payloads) {
      const answer = await client.get(ssoPath(query));
      expect([answer.status, answer.json?.error_code, query.sso]).toEqual([
        400,
        "discourse_payload_invalid",
        query.sso,
      ]);
    }
    // Missing or oversized query fields are the request's fault, never the server's.
    for (const path of ["/api/discourse/sso", "/api/discourse/sso?sso=abc", "/api/discourse/sso?sig=abc"]) {
      expect((await client.get(path)).status).toBe(400);
    }
    expect((await client.get(ssoPath({ sso: "a".repeat(5000), sig: "b" }))).status).toBe(400);
  });

  it("answers a sign-in that owes a step as a visitor: no session until the step is done (issue #24)", async () => {
    const person = await createPerson(server.app, { requirePasswordUpdate: true });
    const client = await new Client(server.url).start();
    const sso = ssoPath(forumRequest({ nonce: nonce(), return_sso_url: returnUrl }));
    const login = await client.post("/api/account/login", { email: person.email, password: PASSWORD, returnTo: sso });
    expect(login.json.next.kind).toBe("step");
    expectErrorObject(await client.get(sso), 401, "not_authenticated");
    const changed = await client.post("/api/account/change_password", {
      oldPassword: PASSWORD,
      password: "Copper-Lantern-91!",
    });
    expect(changed.json.next).toMatchObject({ kind: "return" });
    expect((await client.get(sso)).status).toBe(200);
  });

  async function forumUser(client: Client) {
    const request = forum.request();
    const answer = await client.get(ssoPath(request));
    await fetch(answer.json.loginUrl, { redirect: "manual" });
  }

  const logOutsOf = (id: string) => forum.logOuts.filter((x) => x === id).length;

  it("signs the person out of the forum once when they sign out here", async () => {
    const { person, client } = await signedIn();
    await forumUser(client);
    expect((await client.post("/api/account/logout")).status).toBeLessThan(300);
    await expect.poll(() => logOutsOf(person.id), { timeout: 5000 }).toBe(1);
    // The job is marked done once the forum's answer is in; then nothing further is sent.
    const statuses = async () =>
      (await jobsStore.list(server.app.db)).filter((j) => j.payload.includes(person.id)).map((j) => j.status);
    await expect.poll(statuses, { timeout: 5000 }).toEqual(["done"]);
    // One more pass of the worker: a done job is not sent again.
    await server.app.services.jobs.runOnce();
    expect(logOutsOf(person.id)).toBe(1);
  });

  it("signs disabled and deleted accounts out of the forum, and a forum without the user is done at once", async () => {
    const disabled = await signedIn();
    await forumUser(disabled.client);
    const row = await server.app.db
      .selectFrom("users")
      .selectAll()
      .where("id", "=", disabled.person.id)
      .executeTakeFirstOrThrow();
    await disableUser(server.app.db, row);
    await expect.poll(() => logOutsOf(disabled.person.id), { timeout: 5000 }).toBe(1);
    const deleted = await signedIn();
    await forumUser(deleted.client);
    const deletedRow = await server.app.db
      .selectFrom("users")
      .selectAll()
      .where("id", "=", deleted.person.id)
      .executeTakeFirstOrThrow();
    await deleteUser(server.app.db, deletedRow);
    await expect.poll(() => logOutsOf(deleted.person.id), { timeout: 5000 }).toBe(1);
    // Never at the forum: its lookup answers 404, which is done, not retried.
    const stranger = await signedIn();
    await stranger.client.post("/api/account/logout");
    await expect
      .poll(
        async () => (await jobsStore.list(server.app.db)).find((j) => j.payload.includes(stranger.person.id))?.status,
        {
          timeout: 5000,
        },
      )
      .toBe("done");
    expect(logOutsOf(stranger.person.id)).toBe(0);
  });

  it("signs account changes out of the forum once each, also when no gateway session was live", async () => {
    const db = server.app.db;
    const row = (id: string) => db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    const jobsOf = async (id: string) =>
      (await jobsStore.list(db, "forum_log_out")).filter((j) => JSON.parse(j.payload).externalId === id);
    /** Signed in to the forum, then the gateway session ended as the sweeper ends an expired one. */
    async function forumOnly() {
      const { person, client } = await signedIn();
      await forumUser(client);
      await sessionsStore.deleteForUser(db, person.id);
      return person;
    }
    const disabled = await forumOnly();
    await disableUser(db, await row(disabled.id));
    const deleted = await forumOnly();
    await deleteUser(db, await row(deleted.id));
    const reset = await forumOnly();
    const resetCode = await issueCode(db, reset.id, "password_reset", PASSWORD_RESET_TTL_MS);
    const anyone = await new Client(server.url).start();
    expect((await anyone.post("/api/account/reset_password", { code: resetCode, password: NEW_PASSWORD })).status).toBe(
      200,
    );
    const erased = await forumOnly();
    const deletionCode = await issueCode(db, erased.id, "deletion", DELETION_TTL_MS);
    expect((await anyone.post("/api/account/delete", { deletionCode })).status).toBe(200);
    // A victim changing the password evicts whoever is in the forum; the session that changed it stays here.
    const changed = await signedIn();
    await forumUser(changed.client);
    const change = await changed.client.post("/api/account/change_password", {
      oldPassword: PASSWORD,
      password: NEW_PASSWORD,
    });
    expect(change.status).toBe(200);
    expect((await changed.client.get("/api/session")).status).toBe(200);
    // With a live session too, one event is one job (not the session end's and the account change's).
    const live = await signedIn();
    await forumUser(live.client);
    await disableUser(db, await row(live.person.id));

    const people = [disabled, deleted, reset, erased, changed.person, live.person];
    for (const person of people) await expect.poll(() => logOutsOf(person.id), { timeout: 5000 }).toBe(1);
    for (const person of people)
      await expect
        .poll(async () => (await jobsOf(person.id)).map((j) => j.status), { timeout: 5000 })
        .toEqual(["done"]);
    // One more pass of the worker: a done job is not sent again.
    await server.app.services.jobs.runOnce();
    for (const person of people) expect(logOutsOf(person.id)).toBe(1);
  });

  it("retries through a forum outage until the sign-out arrives, and loses nothing", { timeout: 60_000 }, async () => {
    const { person, client } = await signedIn();
    await forumUser(client);
    forum.failNext(3);
    await client.post("/api/account/logout");
    await expect.poll(() => logOutsOf(person.id), { timeout: 20_000 }).toBe(1);
    // The forum records the sign-out before it answers; the worker marks the job done once the answer is in.
    const jobOf = async () => (await jobsStore.list(server.app.db)).find((j) => j.payload.includes(person.id));
    await expect.poll(async () => (await jobOf())?.status, { timeout: 5_000 }).toBe("done");
    expect(await jobOf()).toMatchObject({ status: "done", attempts: 3 });

    const second = await signedIn();
    await forumUser(second.client);
    forum.breakConnections(true);
    await second.client.post("/api/account/logout");
    await expect
      .poll(
        async () => (await jobsStore.list(server.app.db)).find((j) => j.payload.includes(second.person.id))?.attempts,
        {
          timeout: 20_000,
        },
      )
      .toBeGreaterThanOrEqual(2);
    expect(logOutsOf(second.person.id)).toBe(0);
    forum.breakConnections(false);
    await expect.poll(() => logOutsOf(second.person.id), { timeout: 20_000 }).toBe(1);
  });

  it("answers 404 discourse_not_configured without the bridge", async () => {
    const plain = await startServer();
    try {
      const client = await new Client(plain.url).start();
      const answer = await client.get(ssoPath(forumRequest({ nonce: nonce(), return_sso_url: returnUrl })));
      expectErrorObject(answer, 404, "discourse_not_configured");
    } finally {
      await plain.close();
    }
  });
});

describeDatabases([["PostgreSQL"]])("forum sign-out with two gateways on one database (issue #13, %s)", () => {
  let forum: StandInForum;
  let servers: TestServer[];

  beforeAll(async () => {
    forum = await startStandInForum({ gatewayUrl: "http://localhost:8080", secret: SECRET, apiKey: API_KEY });
    const databaseUrl = await freshPostgres();
    const env = { DISCOURSE_URL: forum.url, DISCOURSE_SECRET: SECRET, DISCOURSE_API_KEY: API_KEY };
    servers = [];
    for (let i = 0; i < 2; i++) {
      servers.push(await startServer({ databaseUrl, env, app: { jobIntervalMs: 20, jobFirstRetryMs: 50 } }));
    }
  });
  afterAll(async () => {
    for (const server of servers) await server.close();
    await forum.close();
  });

  it("sends each sign-out exactly once, whichever node's worker takes it", async () => {
    const [first, second] = servers as [TestServer, TestServer];
    const people: { person: { id: string; email: string }; client: Client }[] = [];
    for (let i = 0; i < 6; i++) {
      const server = i % 2 ? second : first;
      const person = await createPerson(server.app);
      const client = await new Client(server.url).start();
      await client.login(person.email, PASSWORD);
      const request = forum.request();
      const answer = await client.get(ssoPath(request));
      await fetch(answer.json.loginUrl, { redirect: "manual" });
      people.push({ person, client });
    }
    forum.failNext(2);
    await Promise.all(people.map(({ client }) => client.post("/api/account/logout")));
    await expect
      .poll(() => people.every(({ person }) => forum.logOuts.includes(person.id)), { timeout: 10_000 })
      .toBe(true);
    // Every job done, and one more pass of each node's worker: none is sent again.
    const pending = async () =>
      (await jobsStore.list(first.app.db, "forum_log_out")).filter((job) => job.status !== "done").length;
    await expect.poll(pending, { timeout: 10_000 }).toBe(0);
    await Promise.all(servers.map((server) => server.app.services.jobs.runOnce()));
    for (const { person } of people) expect(forum.logOuts.filter((id) => id === person.id)).toHaveLength(1);
  });
});

describeDatabases([["SQLite"]])("admin-made accounts and the forum (issue #13)", () => {
  it("user:create leaves the address unproven unless --verified", async () => {
    const server = await startServer({ databaseUrl: `sqlite:${tempDir()}/admin.db` });
    try {
      const plain = await createUser(server.app.db, { email: "plain@example.com", password: "correct horse battery" });
      const vouched = await createUser(server.app.db, {
        email: "vouched@example.com",
        password: "correct horse battery",
        emailVerified: true,
      });
      expect([plain.email_verified, vouched.email_verified]).toEqual([0, 1]);
    } finally {
      await server.close();
    }
  });
});

describeDatabases([["SQLite"]])("the admin command line and the forum (issue #13)", () => {
  it("queues the forum's sign-out on user:disable and user:delete, only with the bridge's API key", async () => {
    const forumEnv = { DISCOURSE_URL: "http://localhost:9", DISCOURSE_SECRET: SECRET, DISCOURSE_API_KEY: API_KEY };
    const base = { DATABASE_URL: `sqlite:${tempDir()}/cli-forum.db`, SESSION_SECRET: "s".repeat(32) };
    const run = (env: Record<string, string>, ...argv: string[]) => runAdmin(argv, { ...base, ...env });
    const password = ["--password", "correct horse battery"];
    expect((await run({}, "user:create", "--email", "a@example.com", ...password)).code).toBe(0);
    expect((await run({}, "user:create", "--email", "b@example.com", ...password)).code).toBe(0);
    expect(
      (
        await run(
          { DISCOURSE_URL: forumEnv.DISCOURSE_URL, DISCOURSE_SECRET: SECRET },
          "user:disable",
          "--email",
          "b@example.com",
        )
      ).code,
    ).toBe(0);
    // No gateway session was ever live: the account change itself queues the job, for the gateway's worker.
    expect((await run(forumEnv, "user:disable", "--email", "a@example.com")).code).toBe(0);
    expect((await run(forumEnv, "user:delete", "--email", "a@example.com")).code).toBe(0);
    const { db } = openDatabase(base.DATABASE_URL);
    try {
      const jobs = await jobsStore.list(db, "forum_log_out");
      expect(jobs.map((j) => j.status)).toEqual(["pending", "pending"]);
      expect(new Set(jobs.map((j) => j.payload)).size).toBe(1);
    } finally {
      await db.destroy();
    }
  });
});

describeDatabases([["SQLite"]])("the forum's answers to the sign-out job (issue #13)", () => {
  it("reads at most 64 KiB of a user lookup: a larger answer fails (to be retried) and signs no one out", async () => {
    const calls: string[] = [];
    let answer: "small" | "declared" | "streamed" = "small";
    const padding = "x".repeat(100 * 1024);
    const forum = createServer((request, response) => {
      calls.push(`${request.method} ${request.url}`);
      if (request.method === "POST") return response.writeHead(200).end("{}");
      const body = JSON.stringify({ user: { id: 7 }, ...(answer === "small" ? {} : { padding }) });
      if (answer === "streamed") {
        // No length said: chunk after chunk, as a hostile forum would go on.
        response.writeHead(200, { "content-type": "application/json" });
        for (let i = 0; i < body.length; i += 8192) response.write(body.slice(i, i + 8192));
        return response.end();
      }
      response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
      response.end(body);
    });
    await new Promise<void>((resolve) => forum.listen(0, "127.0.0.1", resolve));
    const { port } = forum.address() as AddressInfo;
    const logOut = forumLogOut({
      origin: `http://127.0.0.1:${port}`,
      secret: SECRET,
      api: { key: API_KEY, username: "system" },
    });
    try {
      for (const kind of ["declared", "streamed"] as const) {
        answer = kind;
        await expect(logOut({ externalId: "someone" })).rejects.toThrow(/larger than 65536 bytes/u);
      }
      expect(calls.filter((c) => c.startsWith("POST"))).toEqual([]);
      answer = "small";
      await logOut({ externalId: "someone" });
      expect(calls.filter((c) => c.startsWith("POST"))).toEqual(["POST /admin/users/7/log_out"]);
    } finally {
      forum.closeAllConnections();
      await new Promise((resolve) => forum.close(resolve));
    }
  });
});

/** Fuzzing on a server of its own: its hundreds of calls would spend the other tests' rate limit. */
describeDatabases([["SQLite"]])("DiscourseConnect provider under fuzzed input (issue #13)", () => {
  const FORUM = "https://forum.example";
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ env: { DISCOURSE_URL: FORUM, DISCOURSE_SECRET: SECRET } });
  });
  afterAll(() => server.close());

  it("never answers a 5xx to fuzzed input", async () => {
    const person = await createPerson(server.app);
    const client = await new Client(server.url).start();
    await client.login(person.email, PASSWORD);
    const visitor = await new Client(server.url).start();
    const random = (n: number) => randomBytes(n).toString("latin1");
    for (let i = 0; i < 25; i++) {
      const kind = i % 5;
      const sso =
        kind === 0
          ? random(1 + (i % 90))
          : kind === 1
            ? Buffer.from(random(1 + (i % 120))).toString("base64")
            : kind === 2
              ? Buffer.from(`nonce=${random(i % 40)}&return_sso_url=${random(i % 60)}`, "latin1").toString("base64")
              : kind === 3
                ? Buffer.from(`nonce=x&return_sso_url=${encodeURIComponent(`${FORUM}/${random(i % 30)}`)}`).toString(
                    "base64",
                  )
                : `${Buffer.from(random(40)).toString("base64")}\r\n${"=".repeat(i % 4)}`;
      const sig = i % 3 === 0 ? random(64) : hmac(sso);
      for (const who of [client, visitor]) {
        const answer = await who.get(ssoPath({ sso, sig }));
        expect(answer.status, `${JSON.stringify(sso)} → ${answer.text}`).toBeLessThan(500);
      }
    }
    // Raw, unencoded and repeated query strings as a browser might send them.
    for (const raw of ["sso=%&sig=%", "sso=a&sso=b&sig=c", "sso[]=a&sig=b", `sso=${"%00".repeat(50)}&sig=%ff`]) {
      expect((await client.get(`/api/discourse/sso?${raw}`)).status).toBeLessThan(500);
    }
  });
});
