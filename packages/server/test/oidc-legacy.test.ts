import { createHash, randomBytes } from "node:crypto";
import { WEB_CLIENT_ID } from "@gatehouse/contract";
import { createLocalJWKSet, type JSONWebKeySet, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.ts";
import { webClient } from "../src/oidc/legacy.ts";
import { expectErrorObject } from "./harness.ts";
import {
  Browser,
  createPerson,
  type OidcServer,
  PASSWORD,
  readJson,
  SITE_SECRET,
  startOidcServer,
} from "./oidc-harness.ts";

/** A legacy site: its host is on the default brands file's return list, and its client is marked legacy. */
const LEGACY_ORIGIN = "https://www.archviz.example";
const LEGACY_CLIENT = "archviz-legacy";
/** On the return list too, but no legacy client's: it may be returned to, never given a token. */
const PLAIN_ORIGIN = "https://www.engine.example";

const base64url = (bytes: Buffer) => bytes.toString("base64url");

describe("the legacy flow's provider side and GET /api/legacy_token (issue #10 §3)", () => {
  let server: OidcServer;
  const jwks = async () => createLocalJWKSet((await readJson(await fetch(`${server.issuer}/jwks`))) as JSONWebKeySet);
  const callback = () => `${server.url}/legacy_login/callback`;

  beforeAll(async () => {
    server = await startOidcServer([
      {
        client_id: LEGACY_CLIENT,
        redirect_uris: [`${LEGACY_ORIGIN}/callback`],
        legacy: true,
        client_secret: SITE_SECRET,
      },
      { client_id: "site", client_secret: SITE_SECRET, redirect_uris: ["https://site.example/cb"], first_party: true },
    ]);
  });
  afterAll(() => server.close());

  async function signedIn(overrides: { requirePasswordUpdate?: boolean } = {}) {
    const person = await createPerson(server.app, overrides);
    const browser = new Browser(server);
    await browser.signIn(person.email);
    return { person, browser };
  }

  /** The web app's authorization request, as the login page builds it (web: screens/legacy/flow.ts). */
  function webRequest(resource: string, overrides: Record<string, string> = {}) {
    const verifier = base64url(randomBytes(32));
    const state = base64url(randomBytes(32));
    const query = new URLSearchParams({
      client_id: WEB_CLIENT_ID,
      response_type: "code",
      scope: "openid",
      redirect_uri: callback(),
      state,
      code_challenge: base64url(createHash("sha256").update(verifier).digest()),
      code_challenge_method: "S256",
      resource,
      ...overrides,
    });
    return { url: `${server.issuer}/auth?${query}`, verifier, state };
  }

  function redeem(code: string, verifier: string, resource: string) {
    return fetch(`${server.issuer}/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: server.url },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        client_id: WEB_CLIENT_ID,
        code,
        redirect_uri: callback(),
        code_verifier: verifier,
        resource,
      }),
    });
  }

  async function expectSiteToken(token: string, subject: string) {
    const { payload, protectedHeader } = await jwtVerify(token, await jwks(), {
      issuer: server.issuer,
      audience: LEGACY_CLIENT,
    });
    expect(protectedHeader.typ).toBe("at+jwt");
    expect(payload.sub).toBe(subject);
    expect(payload.client_id).toBe(WEB_CLIENT_ID);
  }

  it("gives the web app, with code + PKCE from its own origin, a JWT for the legacy site only", async () => {
    const { person, browser } = await signedIn();
    const request = webRequest(LEGACY_ORIGIN);
    const landed = await browser.authorize(request.url);
    expect(`${landed.origin}${landed.pathname}`).toBe(callback());
    expect(landed.searchParams.get("state")).toBe(request.state);
    const answer = await redeem(String(landed.searchParams.get("code")), request.verifier, LEGACY_ORIGIN);
    expect(answer.status).toBe(200);
    // The browser may read the answer on the callback's origin (CORS for a public client's own origin).
    expect(answer.headers.get("access-control-allow-origin")).toBe(server.url);
    const tokens = await readJson(answer);
    expect(tokens.refresh_token).toBeUndefined();
    await expectSiteToken(tokens.access_token, person.id);
    // Not a token for the brands' API or any other site: the API's audience is refused.
    await expect(jwtVerify(tokens.access_token, await jwks(), { audience: "urn:gatehouse:api" })).rejects.toThrow();
  });

  it("refuses a code redeemed without its verifier, and a resource that is no legacy site's", async () => {
    const { browser } = await signedIn();
    const request = webRequest(LEGACY_ORIGIN);
    const landed = await browser.authorize(request.url);
    const wrong = await redeem(String(landed.searchParams.get("code")), base64url(randomBytes(32)), LEGACY_ORIGIN);
    expect((await readJson(wrong)).error).toBe("invalid_grant");

    for (const resource of [PLAIN_ORIGIN, "https://evil.example", `${LEGACY_ORIGIN}.evil.example`]) {
      const refused = await browser.authorize(webRequest(resource).url);
      expect(refused.searchParams.get("error")).toBe("invalid_target");
      expect(refused.searchParams.get("code")).toBeNull();
    }
  });

  it("gives no other client a legacy site's token", async () => {
    const { browser } = await signedIn();
    const query = new URLSearchParams({
      client_id: "site",
      response_type: "code",
      scope: "openid",
      redirect_uri: "https://site.example/cb",
      code_challenge: base64url(createHash("sha256").update("x".repeat(43)).digest()),
      code_challenge_method: "S256",
      resource: LEGACY_ORIGIN,
    });
    const refused = await browser.authorize(`${server.issuer}/auth?${query}`);
    expect(refused.origin).toBe("https://site.example");
    expect(refused.searchParams.get("error")).toBe("invalid_target");
  });

  it("matches the web app's callback exactly, on the hosts of the brands file only", async () => {
    const { browser } = await signedIn();
    for (const redirect of [`${callback()}/`, `${callback()}?x=1`, "https://evil.example/legacy_login/callback"]) {
      const refused = await browser.authorize(webRequest(LEGACY_ORIGIN, { redirect_uri: redirect }).url);
      expect(refused.pathname).toBe("/error");
    }
    const config = loadConfig({ NODE_ENV: "test", PUBLIC_URL: "https://login.gatehouse.example", LOG_LEVEL: "silent" });
    const uris = webClient(config).redirect_uris;
    expect(uris).toContain("https://login.archviz.example/legacy_login/callback");
    expect(uris).toContain("https://login.gatehouse.example/legacy_login/callback");
    expect(uris.every((uri) => uri.endsWith("/legacy_login/callback"))).toBe(true);
  });

  it("GET /api/legacy_token sends a signed-in person on with the site's token in the fragment", async () => {
    const { person, browser } = await signedIn();
    const destination = `${LEGACY_ORIGIN}/projects?tab=1#old`;
    const answer = await browser.get(`/api/legacy_token?continue=${encodeURIComponent(destination)}`);
    expect(answer.status).toBe(302);
    expect(answer.headers.get("referrer-policy")).toBe("no-referrer");
    expect(answer.headers.get("cache-control")).toBe("no-store");
    const location = new URL(String(answer.headers.get("location")));
    expect(`${location.origin}${location.pathname}${location.search}`).toBe(`${LEGACY_ORIGIN}/projects?tab=1`);
    // In the fragment, never the query (issue #10 §3).
    expect(location.search).not.toContain("access_token");
    const fragment = new URLSearchParams(location.hash.slice(1));
    expect(fragment.get("token_type")).toBe("Bearer");
    expect(Number(fragment.get("expires_in"))).toBeGreaterThan(0);
    await expectSiteToken(String(fragment.get("access_token")), person.id);
  });

  it("GET /api/legacy_token shows the error page to a visitor and for an address that may have no token", async () => {
    const visitor = new Browser(server);
    const signedOut = await visitor.get(`/api/legacy_token?continue=${encodeURIComponent(`${LEGACY_ORIGIN}/x`)}`);
    expect(signedOut.status).toBe(302);
    const page = new URL(String(signedOut.headers.get("location")), server.url);
    expect(page.pathname).toBe("/error");
    expect(page.searchParams.get("error_code")).toBe("legacy_invalid_authentication");
    expect(page.searchParams.get("error_id")).toMatch(/^[0-9a-f-]{36}$/u);

    const { browser } = await signedIn();
    const refused = [
      `${PLAIN_ORIGIN}/x`,
      "https://evil.example/x",
      `${LEGACY_ORIGIN}.evil.example/x`,
      `${LEGACY_ORIGIN}:8443/x`,
      "http://www.archviz.example/x",
      `//www.archviz.example/x`,
      "javascript:alert(1)",
      "",
    ];
    for (const destination of refused) {
      const answer = await browser.get(`/api/legacy_token?continue=${encodeURIComponent(destination)}`);
      const location = new URL(String(answer.headers.get("location")), server.url);
      expect([answer.status, location.pathname, location.searchParams.get("error_code")]).toEqual([
        302,
        "/error",
        "legacy_token_error",
      ]);
      expect(location.hash).toBe("");
    }
    const bare = await browser.get("/api/legacy_token");
    expect(new URL(String(bare.headers.get("location")), server.url).searchParams.get("error_code")).toBe(
      "legacy_token_error",
    );
    // However the query is spelled, a clear error and never a 5xx.
    expectErrorObject(await browser.get("/api/legacy_token?continue=a&continue=b"), 400, "invalid_request");
  });

  it("gives a person who owes a password change no token: the sign-in's next is the step, then the legacy flow", async () => {
    const person = await createPerson(server.app, { requirePasswordUpdate: true });
    const browser = new Browser(server);
    await browser.start();
    const destination = `${LEGACY_ORIGIN}/x`;
    const login = await browser.post("/api/account/login", {
      email: person.email,
      password: PASSWORD,
      returnTo: destination,
    });
    expect(login.json.next.kind).toBe("step");
    // No session yet: the legacy token is refused (the error page), never minted for an unfinished sign-in.
    const answer = await browser.get(`/api/legacy_token?continue=${encodeURIComponent(destination)}`);
    expect(answer.status).toBe(302);
    const location = new URL(String(answer.headers.get("location")), server.url);
    expect(location.searchParams.get("error_code")).toBe("legacy_invalid_authentication");
    expect(location.hash).toBe("");
    const changed = await browser.post("/api/account/change_password", {
      oldPassword: PASSWORD,
      password: "Copper-Lantern-91!",
    });
    expect(changed.json).toEqual({ next: { kind: "legacy", url: destination } });
  });
});
