import { SessionAnswer } from "@gatehouse/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "../src/accounts/users.ts";
import { Client, expectErrorObject, startServer, type TestServer } from "./harness.ts";

let server: TestServer;
beforeAll(async () => {
  // The tests speak for the proxy in front of the service, which sets the country header (COUNTRY_HEADER).
  server = await startServer({ env: { TRUST_PROXY: "loopback" } });
  await createUser(server.app.db, {
    email: "ann@example.com",
    password: "correct horse",
    firstName: "Ann",
    lastName: "Lee",
    countryCode: "DE",
  });
});
afterAll(() => server.close());

describe("GET /api/session", () => {
  it("answers a visitor 204 No Content (no console error in the browser), a session cookie and a CSRF token", async () => {
    const client = new Client(server.url);
    const answer = await client.get("/api/session");
    expect(answer.status).toBe(204);
    expect(answer.text).toBe("");
    expect(answer.headers.get("x-csrf-token")).toMatch(/^[\w-]{43}$/u);
    const cookie = answer.headers.getSetCookie()[0] ?? "";
    expect(cookie).toMatch(/^gh_session=[\w-]{43};/u);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Lax");
    expect(answer.headers.get("cache-control")).toBe("no-store");
  });

  it("carries the API security headers (OWASP REST cheat sheet)", async () => {
    const answer = await new Client(server.url).get("/api/session");
    expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
    expect(answer.headers.get("content-security-policy")).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(answer.headers.get("cross-origin-resource-policy")).toBe("same-origin");
    expect(answer.headers.get("referrer-policy")).toBe("no-referrer");
  });

  it("answers a signed-in user with the session fields and the upper-cased country", async () => {
    const client = await new Client(server.url, { "cf-ipcountry": "es" }).start();
    expect((await client.login("ann@example.com", "correct horse")).status).toBe(200);
    const answer = await client.get("/api/session");
    expect(answer.status).toBe(200);
    expect(answer.headers.get("x-csrf-token")).toBe(client.csrf);
    const session = SessionAnswer.parse(answer.json);
    expect(session).toMatchObject({
      Email: "ann@example.com",
      FirstName: "Ann",
      LastName: "Lee",
      Location: "ES",
      Linked: true,
    });
  });

  it("says ZZ when the country header is missing or not a country", async () => {
    for (const headers of [{}, { "cf-ipcountry": "XX" }, { "cf-ipcountry": "<script>" }] as Record<string, string>[]) {
      const client = await new Client(server.url, headers).start();
      await client.login("ann@example.com", "correct horse");
      expect((await client.get("/api/session")).json.Location).toBe("ZZ");
    }
  });
});

describe("CSRF (every non-GET /api call needs X-CSRF-Token)", () => {
  it("refuses a call without the header", async () => {
    const client = await new Client(server.url).start();
    const answer = await client.post(
      "/api/account/login",
      { email: "ann@example.com", password: "correct horse" },
      { "x-csrf-token": "" },
    );
    expectErrorObject(answer, 403, "csrf_invalid");
  });

  it("refuses another session's token", async () => {
    const a = await new Client(server.url).start();
    const b = await new Client(server.url).start();
    const answer = await a.post(
      "/api/account/login",
      { email: "ann@example.com", password: "correct horse" },
      { "x-csrf-token": b.csrf ?? "" },
    );
    expectErrorObject(answer, 403, "csrf_invalid");
  });

  it("refuses a call with no session cookie at all", async () => {
    const a = await new Client(server.url).start();
    const stranger = new Client(server.url);
    stranger.csrf = a.csrf;
    expectErrorObject(await stranger.login("ann@example.com", "correct horse"), 403, "csrf_invalid");
  });

  it("accepts the session's own token", async () => {
    const client = await new Client(server.url).start();
    expect((await client.login("ann@example.com", "correct horse")).status).toBe(200);
  });
});

describe("session lifecycle", () => {
  it("rotates the session id at sign-in: the pre-login cookie is not signed in (ASVS 7.2.4)", async () => {
    const client = await new Client(server.url).start();
    const before = client.cookies.get("gh_session");
    await client.login("ann@example.com", "correct horse");
    const after = client.cookies.get("gh_session");
    expect(after).not.toBe(before);
    const fixated = new Client(server.url);
    fixated.cookies.set("gh_session", before ?? "");
    expect((await fixated.get("/api/session")).status).toBe(204);
  });

  it("ends the server session at logout, and the old cookie no longer works", async () => {
    const client = await new Client(server.url).start();
    await client.login("ann@example.com", "correct horse");
    const signedIn = client.cookies.get("gh_session") ?? "";
    const logout = await client.post("/api/account/logout", {});
    expect(logout.status).toBe(200);
    expect((await client.get("/api/session")).status).toBe(204);
    const replay = new Client(server.url);
    replay.cookies.set("gh_session", signedIn);
    expect((await replay.get("/api/session")).status).toBe(204);
  });

  it("takes logout as form data with ua, as the spec's call does", async () => {
    const client = await new Client(server.url).start();
    await client.login("ann@example.com", "correct horse");
    const answer = await client.request("POST", "/api/account/logout", "ua=enscape", {
      "content-type": "application/x-www-form-urlencoded",
    });
    expect(answer.status).toBe(200);
    expect((await client.get("/api/session")).status).toBe(204);
  });

  it("ignores a forged cookie", async () => {
    const client = new Client(server.url);
    client.cookies.set("gh_session", "not-a-token");
    const answer = await client.get("/api/session");
    expect(answer.status).toBe(204);
    expect(client.cookies.get("gh_session")).toMatch(/^[\w-]{43}$/u);
  });
});

describe("secure cookies behind https", () => {
  it("uses the __Host- prefix and Secure when PUBLIC_URL is https", async () => {
    const https = await startServer({ env: { PUBLIC_URL: "https://login.example.com" } });
    try {
      const answer = await new Client(https.url).get("/api/session");
      const cookie = answer.headers.getSetCookie()[0] ?? "";
      expect(cookie).toMatch(/^__Host-gh_session=/u);
      expect(cookie).toContain("Secure");
      expect(cookie).toContain("Path=/");
      expect(cookie).not.toContain("Domain=");
    } finally {
      await https.close();
    }
  });
});

describe("logging", () => {
  /** A second app on the test server's database whose log lines are collected. */
  async function loggedApp() {
    const lines: string[] = [];
    const { Writable } = await import("node:stream");
    const { buildApp } = await import("../src/app.ts");
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    return { lines, app: await buildApp({ ...server.config, logLevel: "info" }, { logStream: stream }) };
  }

  it("never writes a mailed code: not from a link's page, not from the code-status call", async () => {
    const { lines, app } = await loggedApp();
    try {
      await app.inject({ url: "/account/password-reset?code=Secret-Reset-Code&return_to=%2Fprofile%2Fedit" });
      await app.inject({ url: "/account/activate?code=Secret-Activation-Code" });
      await app.inject({ url: "/api/account/recover/Secret-Path-Code" });
      await app.inject({ url: "/api/account/delete/Secret-Deletion-Code" });
      await app.inject({ method: "POST", url: "/api/account/delete/request" });
      const log = lines.join("");
      expect(log).not.toMatch(/Secret-/u);
      expect(log).toContain("/api/account/delete/REDACTED");
      expect(log).toContain("/api/account/delete/request");
      expect(log).toContain("/account/password-reset?code=REDACTED&return_to=%2Fprofile%2Fedit");
      expect(log).toContain("/api/account/recover/REDACTED");
    } finally {
      await app.close();
    }
  });

  it("logs every refused request with the guid the client sees", async () => {
    const { lines, app } = await loggedApp();
    try {
      const answer = await app.inject({ method: "POST", url: "/api/account/login", payload: {} });
      const guid = answer.json().guid as string;
      expect(answer.statusCode).toBe(403);
      expect(lines.some((line) => line.includes(guid) && line.includes("csrf_invalid"))).toBe(true);
    } finally {
      await app.close();
    }
  });
});
