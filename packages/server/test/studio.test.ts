import { Writable } from "node:stream";
import { LICENCE_RESOURCE, LICENCE_SCOPE, LICENCE_TOKEN_TTL_S } from "@gatehouse/contract";
import { createLocalJWKSet, type JSONWebKeySet, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Browser, createPerson, type OidcServer, PASSWORD, readJson, startOidcServer } from "./oidc-harness.ts";

/** GET /api/studio/complete (issue #13): the end of the studio sign-in, a redirect for every outcome. */
describe("GET /api/studio/complete", () => {
  let server: OidcServer;
  const lines: string[] = [];

  beforeAll(async () => {
    const logStream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    server = await startOidcServer([], { env: { LOG_LEVEL: "info" }, logStream });
  });
  afterAll(() => server.close());

  const complete = (browser: Browser) => browser.get("/api/studio/complete");
  const where = (answer: { headers: Headers }) => new URL(String(answer.headers.get("location")), server.url);

  it("sends a visitor back to the studio sign-in, with no token", async () => {
    const answer = await complete(new Browser(server));
    expect(answer.status).toBe(302);
    expect(where(answer).href).toBe(`${server.url}/trimble/login`);
  });

  it("gives a signed-in person a licence token for their licence helper, on the complete page", async () => {
    const person = await createPerson(server.app);
    const browser = new Browser(server);
    await browser.signIn(person.email);
    const answer = await complete(browser);
    expect(answer.status).toBe(302);
    expect(answer.headers.get("referrer-policy")).toBe("no-referrer");
    expect(answer.headers.get("cache-control")).toBe("no-store");
    const location = where(answer);
    expect(location.pathname).toBe("/register/trimble/complete");
    const token = String(location.searchParams.get("access_token"));

    const jwks = createLocalJWKSet((await readJson(await fetch(`${server.issuer}/jwks`))) as JSONWebKeySet);
    const { payload, protectedHeader } = await jwtVerify(token, jwks, {
      issuer: server.issuer,
      audience: LICENCE_RESOURCE,
      typ: "at+jwt",
    });
    expect(payload.sub).toBe(person.id);
    // Licence activation alone, for five minutes: no token for the brands' API (urn:gatehouse:api).
    expect(payload.scope).toBe(LICENCE_SCOPE);
    expect(payload.aud).toBe(LICENCE_RESOURCE);
    expect(protectedHeader.alg).toBe("ES256");
    expect(Number(payload.exp) - Number(payload.iat)).toBe(LICENCE_TOKEN_TTL_S);

    // The log holds neither this request's token nor the complete page's when the browser opens it.
    await browser.get(`${location.pathname}${location.search}`);
    await vi.waitFor(() => expect(lines.join("")).toContain("/register/trimble/complete?access_token=REDACTED"), {
      timeout: 5000,
    });
    const logged = lines.join("");
    expect(logged).toContain("/api/studio/complete");
    expect(logged).not.toContain(token);
    expect(logged).not.toContain(token.split(".")[2]);
  });

  it("mints nothing for a navigation another site started (a link or form elsewhere)", async () => {
    const person = await createPerson(server.app);
    const browser = new Browser(server);
    await browser.signIn(person.email);
    // Another site, or a sibling host of ours (issue #24 §2: an old brand site is same-site), mints nothing.
    for (const site of ["cross-site", "same-site"]) {
      const answer = await browser.get("/api/studio/complete", { "sec-fetch-site": site });
      expect(answer.status, site).toBe(302);
      expect(where(answer).href, site).toBe(`${server.url}/trimble/login`);
    }
    // Our own pages' navigation, one typed in, and an older browser's (no Fetch Metadata) are served.
    const typed = await browser.get("/api/studio/complete");
    expect(where(typed).searchParams.has("access_token")).toBe(true);
    for (const site of ["same-origin", "none"]) {
      const own = await browser.get("/api/studio/complete", { "sec-fetch-site": site });
      expect(where(own).searchParams.has("access_token"), site).toBe(true);
    }
  });

  it("tells the complete page whose token it holds, only when it is the signed-in person's", async () => {
    const owner = await createPerson(server.app);
    const ownerBrowser = new Browser(server);
    await ownerBrowser.signIn(owner.email);
    const token = String(where(await complete(ownerBrowser)).searchParams.get("access_token"));
    const account = await ownerBrowser.get("/api/studio/account", { authorization: `Bearer ${token}` });
    expect(account.json).toEqual({ name: "Ann Lee", email: owner.email });

    // Someone else's browser handed the owner's link: refused, and nothing tells whose it is.
    const other = await createPerson(server.app);
    const victim = new Browser(server);
    await victim.signIn(other.email);
    const refused = await victim.get("/api/studio/account", { authorization: `Bearer ${token}` });
    expect([refused.status, refused.json.error_code]).toEqual([403, "studio_token_mismatch"]);
    expect(refused.text).not.toContain(owner.email);
    for (const header of [undefined, "Bearer", "Bearer not-a-jwt", `Basic ${token}`, `Bearer ${"a".repeat(5000)}`]) {
      const odd = await victim.get("/api/studio/account", header ? { authorization: header } : {});
      expect(odd.status, String(header).slice(0, 20)).toBe(403);
    }
    // A token of the person for another audience (an API token) is not a licence token.
    const [head, , sig] = token.split(".");
    const apiClaims = Buffer.from(JSON.stringify({ sub: other.id, aud: "urn:gatehouse:api" })).toString("base64url");
    const wrongAudience = await victim.get("/api/studio/account", {
      authorization: `Bearer ${head}.${apiClaims}.${sig}`,
    });
    expect(wrongAudience.status).toBe(403);
    // Nobody signed in: nothing to check the token against.
    const anonymous = new Browser(server);
    await anonymous.start();
    expect((await anonymous.get("/api/studio/account", { authorization: `Bearer ${token}` })).status).toBe(401);
  });

  it("mints nothing for a sign-in that owes a step; its next is the step, then back here (issue #24)", async () => {
    const person = await createPerson(server.app, { requirePasswordUpdate: true });
    const browser = new Browser(server);
    await browser.start();
    const login = await browser.post("/api/account/login", {
      email: person.email,
      password: PASSWORD,
      returnTo: "/api/studio/complete",
    });
    expect(login.json.next.kind).toBe("step");
    const answer = await complete(browser);
    expect(where(answer).pathname).toBe("/trimble/login");
    expect(where(answer).searchParams.has("access_token")).toBe(false);
    const changed = await browser.post("/api/account/change_password", {
      oldPassword: PASSWORD,
      password: "Copper-Lantern-91!",
    });
    // A path stays a path: the browser goes there on the host it is on.
    expect(changed.json.next).toEqual({ kind: "return", url: "/api/studio/complete" });
    expect(where(await complete(browser)).searchParams.has("access_token")).toBe(true);
  });
});

describe("the studio pages' headers", () => {
  let server: OidcServer;
  beforeAll(async () => {
    server = await startOidcServer([], { env: { LICENCE_HELPER_URL: "http://127.0.0.1:39999" } });
  });
  afterAll(() => server.close());

  it("let only the complete page connect to the licence helper, and keep /trimble/login out of search engines", async () => {
    const completePage = await fetch(`${server.url}/register/trimble/complete`);
    // Its address carries a token: never stored.
    expect(completePage.headers.get("cache-control")).toBe("no-store");
    expect(completePage.headers.get("content-security-policy")).toMatch(
      /connect-src 'self' http:\/\/127\.0\.0\.1:39999;/u,
    );
    const settings = (await completePage.text()).match(/"licenceHelperUrl":"([^"]+)"/u)?.[1];
    expect(settings).toBe("http://127.0.0.1:39999");
    const signIn = await fetch(`${server.url}/trimble/login`);
    expect(signIn.headers.get("x-robots-tag")).toBe("noindex");
    expect(signIn.headers.get("content-security-policy")).not.toContain("39999");
    const login = await fetch(`${server.url}/`);
    expect(login.headers.get("content-security-policy")).toMatch(/connect-src 'self';/u);
    expect(login.headers.get("x-robots-tag")).toBeNull();
  });
});
