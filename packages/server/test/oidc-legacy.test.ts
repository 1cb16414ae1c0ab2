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
/** The legacy client's registered redirect URIs: the only addresses a token may travel to. */
const LEGACY_CALLBACK = `${LEGACY_ORIGIN}/callback`;
const LEGACY_PROJECTS = `${LEGACY_ORIGIN}/projects?tab=1`;
/** Paths of the legacy site that are not registered, the first an open redirect as an old site may have. */
const UNREGISTERED = [
  `${LEGACY_ORIGIN}/redirect?to=https://evil.example/`,
  `${LEGACY_ORIGIN}/`,
  `${LEGACY_ORIGIN}/callback/`,
  `${LEGACY_ORIGIN}/callback?next=/x`,
  `${LEGACY_ORIGIN}/callbackx`,
  `${LEGACY_ORIGIN}/Callback`,
  `${LEGACY_ORIGIN}/projects`,
  `${LEGACY_ORIGIN}/projects?tab=1&x=2`,
  `${LEGACY_CALLBACK}#frag`,
];
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
        client_name: "Archviz Classic",
        redirect_uris: [`${LEGACY_ORIGIN}/callback`, `${LEGACY_ORIGIN}/projects?tab=1`],
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
    const request = webRequest(LEGACY_CALLBACK);
    const landed = await browser.authorize(request.url);
    expect(`${landed.origin}${landed.pathname}`).toBe(callback());
    expect(landed.searchParams.get("state")).toBe(request.state);
    const answer = await redeem(String(landed.searchParams.get("code")), request.verifier, LEGACY_CALLBACK);
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
    const request = webRequest(LEGACY_CALLBACK);
    const landed = await browser.authorize(request.url);
    const wrong = await redeem(String(landed.searchParams.get("code")), base64url(randomBytes(32)), LEGACY_CALLBACK);
    expect((await readJson(wrong)).error).toBe("invalid_grant");

    for (const resource of [PLAIN_ORIGIN, "https://evil.example", `${LEGACY_ORIGIN}.evil.example`]) {
      const refused = await browser.authorize(webRequest(resource).url);
      expect(refused.searchParams.get("error")).toBe("invalid_target");
      expect(refused.searchParams.get("code")).toBeNull();
    }
  });

  it("starts the flow only for an exact registered redirect URI of a legacy client (issue #24 §2)", async () => {
    const { browser } = await signedIn();
    // The site's origin alone, an open redirect on it, or any other path: the provider refuses before any code.
    for (const resource of [LEGACY_ORIGIN, ...UNREGISTERED.filter((uri) => !uri.includes("#"))]) {
      const refused = await browser.authorize(webRequest(resource).url);
      expect([resource, refused.searchParams.get("error")]).toEqual([resource, "invalid_target"]);
      expect(refused.searchParams.get("code")).toBeNull();
    }
    // The second registered address is a resource of its own: a code asked for one does not redeem for the other.
    const request = webRequest(LEGACY_PROJECTS);
    const landed = await browser.authorize(request.url);
    const other = await redeem(String(landed.searchParams.get("code")), request.verifier, LEGACY_CALLBACK);
    expect((await readJson(other)).access_token).toBeUndefined();
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
      resource: LEGACY_CALLBACK,
    });
    const refused = await browser.authorize(`${server.issuer}/auth?${query}`);
    expect(refused.origin).toBe("https://site.example");
    expect(refused.searchParams.get("error")).toBe("invalid_target");
  });

  it("matches the web app's callback exactly, on the hosts of the brands file only", async () => {
    const { browser } = await signedIn();
    for (const redirect of [`${callback()}/`, `${callback()}?x=1`, "https://evil.example/legacy_login/callback"]) {
      const refused = await browser.authorize(webRequest(LEGACY_CALLBACK, { redirect_uri: redirect }).url);
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
    const destination = LEGACY_PROJECTS;
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
    const signedOut = await visitor.get(`/api/legacy_token?continue=${encodeURIComponent(LEGACY_CALLBACK)}`);
    expect(signedOut.status).toBe(302);
    const page = new URL(String(signedOut.headers.get("location")), server.url);
    expect(page.pathname).toBe("/error");
    expect(page.searchParams.get("error_code")).toBe("legacy_invalid_authentication");
    expect(page.searchParams.get("error_id")).toMatch(/^[0-9a-f-]{36}$/u);

    const { browser } = await signedIn();
    const refused = [
      // Issue #24 §2: the legacy site itself, at any address but a registered one (an open redirect there).
      ...UNREGISTERED,
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
    const destination = LEGACY_CALLBACK;
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

  const tokenUrl = (address: string) => `/api/legacy_token?continue=${encodeURIComponent(address)}`;

  it("GET /api/legacy_token answers another site's navigation with a button page, never a token (issue #24 §2)", async () => {
    const { person, browser } = await signedIn();
    const answer = await browser.get(tokenUrl(LEGACY_CALLBACK), { "sec-fetch-site": "cross-site" });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toMatch(/^text\/html/u);
    expect(answer.headers.get("location")).toBeNull();
    expect(answer.headers.get("cache-control")).toBe("no-store");
    expect(answer.headers.get("x-frame-options")).toBe("DENY");
    const csp = String(answer.headers.get("content-security-policy"));
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain("script-src");
    expect(csp).toContain(`form-action 'self' ${LEGACY_ORIGIN}`);
    // No token, no script: only a heading and a form that asks again from our own origin.
    expect(answer.text).not.toMatch(/access_token|eyJ|<script/iu);
    expect(answer.text).toContain("<h1>");
    expect(answer.text).toContain('<form method="get" action="/api/legacy_token">');
    expect(answer.text).toContain(`name="continue" value="${LEGACY_CALLBACK}"`);
    expect(answer.text).toContain('<button type="submit">');
    expect(answer.text).toContain("Archviz Classic");
    // The button's own request: a same-origin navigation, which gets the token.
    const clicked = await browser.get(tokenUrl(LEGACY_CALLBACK), { "sec-fetch-site": "same-origin" });
    expect(clicked.status).toBe(302);
    const fragment = new URLSearchParams(new URL(String(clicked.headers.get("location"))).hash.slice(1));
    await expectSiteToken(String(fragment.get("access_token")), person.id);
    // A typed address or an older browser without Fetch Metadata is the person's own navigation too.
    for (const site of ["none", undefined]) {
      const typed = await browser.get(tokenUrl(LEGACY_CALLBACK), site ? { "sec-fetch-site": site } : {});
      expect(String(typed.headers.get("location"))).toContain("#access_token=");
    }
  });

  it("shows the button page in the visitor's language, the site's name escaped", async () => {
    const { browser } = await signedIn();
    browser.cookies.set("lang", "de");
    const german = await browser.get(tokenUrl(LEGACY_CALLBACK), { "sec-fetch-site": "cross-site" });
    expect(german.text).toContain('<html lang="de">');
    expect(german.text).toContain("Weiter zu Archviz Classic");
  });

  it("refuses an unregistered address to a cross-site navigation too, with the error page", async () => {
    const { browser } = await signedIn();
    const answer = await browser.get(tokenUrl(UNREGISTERED[0] as string), { "sec-fetch-site": "cross-site" });
    expect(answer.status).toBe(302);
    expect(new URL(String(answer.headers.get("location")), server.url).searchParams.get("error_code")).toBe(
      "legacy_token_error",
    );
  });

  it("sends a signed-in person whom another site sent to the login page for a legacy address to the button page", async () => {
    const { browser } = await signedIn();
    const login = `/?${new URLSearchParams({ return_to: LEGACY_CALLBACK })}`;
    const arrival = await browser.get(login, { "sec-fetch-site": "cross-site", accept: "text/html" });
    expect(arrival.status).toBe(302);
    expect(arrival.headers.get("location")).toBe(tokenUrl(LEGACY_CALLBACK));
    // Our own navigation, a prompt, a visitor, or an address that is not registered: the login page as usual.
    const own = await browser.get(login, { "sec-fetch-site": "same-origin", accept: "text/html" });
    const prompted = await browser.get(`${login}&prompt=login`, { "sec-fetch-site": "cross-site" });
    const visitor = await new Browser(server).get(login, { "sec-fetch-site": "cross-site" });
    const unregistered = await browser.get(`/?${new URLSearchParams({ return_to: UNREGISTERED[0] as string })}`, {
      "sec-fetch-site": "cross-site",
    });
    for (const page of [own, prompted, visitor, unregistered]) expect(page.headers.get("location")).toBeNull();
  });
});
