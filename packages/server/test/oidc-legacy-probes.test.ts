import { createHash, randomBytes } from "node:crypto";
import { WEB_CLIENT_ID } from "@gatehouse/contract";
import { createLocalJWKSet, decodeJwt, type JSONWebKeySet, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Browser, createPerson, type OidcServer, readJson, SITE_SECRET, startOidcServer } from "./oidc-harness.ts";

const LEGACY_A = "https://www.archviz.example";
const CLIENT_A = "archviz-legacy";
const LEGACY_B = "https://www.engine.example";
const CLIENT_B = "engine-legacy";
/** The registered redirect URIs: the resources the web app may ask for, the only addresses a token goes to. */
const CALLBACK_A = `${LEGACY_A}/callback`;
const CALLBACK_B = `${LEGACY_B}/callback`;
const b64 = (bytes: Buffer) => bytes.toString("base64url");

describe("the legacy flow against odd and hostile requests (issue #10 §3)", () => {
  let server: OidcServer;
  const callback = () => `${server.url}/legacy_login/callback`;
  beforeAll(async () => {
    server = await startOidcServer([
      { client_id: CLIENT_A, redirect_uris: [`${LEGACY_A}/callback`], legacy: true, client_secret: SITE_SECRET },
      { client_id: CLIENT_B, redirect_uris: [`${LEGACY_B}/callback`], legacy: true, client_secret: SITE_SECRET },
    ]);
  });
  afterAll(() => server.close());

  function webRequest(params: Record<string, string | undefined>) {
    const verifier = b64(randomBytes(32));
    const query = new URLSearchParams({
      client_id: WEB_CLIENT_ID,
      response_type: "code",
      scope: "openid",
      redirect_uri: callback(),
      state: b64(randomBytes(32)),
      code_challenge: b64(createHash("sha256").update(verifier).digest()),
      code_challenge_method: "S256",
    });
    for (const [k, v] of Object.entries(params)) {
      if (v === undefined) query.delete(k);
      else query.set(k, v);
    }
    return { url: `${server.issuer}/auth?${query}`, verifier };
  }
  function redeem(code: string, verifier: string, resource?: string) {
    const body = new URLSearchParams({
      grant_type: "authorization_code",
      client_id: WEB_CLIENT_ID,
      code,
      redirect_uri: callback(),
      code_verifier: verifier,
    });
    if (resource) body.set("resource", resource);
    return fetch(`${server.issuer}/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body,
    });
  }

  it("a code asked for site A's token does not redeem for site B's", async () => {
    const person = await createPerson(server.app);
    const browser = new Browser(server);
    await browser.signIn(person.email);
    const request = webRequest({ resource: CALLBACK_A });
    const landed = await browser.authorize(request.url);
    const answer = await redeem(String(landed.searchParams.get("code")), request.verifier, CALLBACK_B);
    const json = await readJson(answer);
    expect(json.access_token).toBeUndefined();
  });

  it("the web app's public client gets no token for the brands' API (only legacy sites' tokens)", async () => {
    // The built-in client `gatehouse` is public, first-party (no consent) and exists only to fetch a legacy site's
    // token. Asking with no resource (defaultResource → the API) and scope `api` yields an API JWT and an ID token:
    // any code leak or script on any brand host becomes a full API bearer token for the person.
    const person = await createPerson(server.app);
    const browser = new Browser(server);
    await browser.signIn(person.email);
    const request = webRequest({ resource: undefined, scope: "openid api" });
    const landed = await browser.authorize(request.url);
    const code = landed.searchParams.get("code");
    if (code === null) return; // refused at the authorization endpoint: fine
    const json = await readJson(await redeem(code, request.verifier, "urn:gatehouse:api"));
    const audience = typeof json.access_token === "string" ? decodeJwt(json.access_token).aud : undefined;
    expect(audience).not.toBe("urn:gatehouse:api");
  });

  it("the legacy JWT is refused by userinfo and introspection", async () => {
    const person = await createPerson(server.app);
    const browser = new Browser(server);
    await browser.signIn(person.email);
    const answer = await browser.get(`/api/legacy_token?continue=${encodeURIComponent(CALLBACK_A)}`);
    const token = new URLSearchParams(new URL(String(answer.headers.get("location"))).hash.slice(1)).get(
      "access_token",
    );
    const me = await fetch(`${server.issuer}/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(me.status).toBe(401);
    const jwks = createLocalJWKSet((await readJson(await fetch(`${server.issuer}/jwks`))) as JSONWebKeySet);
    const { payload } = await jwtVerify(String(token), jwks, { audience: CLIENT_A });
    expect(payload.aud).toBe(CLIENT_A);
  });

  it("odd continue values never answer 5xx or take a token anywhere but a registered redirect URI", async () => {
    const person = await createPerson(server.app);
    const browser = new Browser(server);
    await browser.signIn(person.email);
    const odd = [
      "%ff",
      "%c0%af",
      `${encodeURIComponent(LEGACY_A)}%ff`,
      encodeURIComponent(`${LEGACY_A}/${"a".repeat(3000)}`),
      encodeURIComponent(`${LEGACY_A}@evil.example/`),
      encodeURIComponent(`${LEGACY_A}%2f@evil.example/`),
      encodeURIComponent(`${LEGACY_A}\\@evil.example/`),
      encodeURIComponent(`${LEGACY_A}:443/x`),
      encodeURIComponent(`HTTPS://WWW.ARCHVIZ.EXAMPLE/x`),
      encodeURIComponent(`${LEGACY_A}./x`),
      encodeURIComponent(`https://www.archviz.example%2e/x`),
      encodeURIComponent(`https://xn--www-archviz.example/x`),
      encodeURIComponent(`${LEGACY_A}/..//evil.example`),
      encodeURIComponent(`${LEGACY_A}/%2e%2e%2f%2fevil.example`),
      encodeURIComponent(`${LEGACY_A}/x#frag`),
      // Issue #24 §2: near misses of the registered address, and an open redirect on the site.
      encodeURIComponent(`${CALLBACK_A}/`),
      encodeURIComponent(`${CALLBACK_A}/../redirect?to=https://evil.example`),
      encodeURIComponent(`${CALLBACK_A}?to=https://evil.example`),
      encodeURIComponent(`${CALLBACK_A}%2f..%2fredirect`),
      encodeURIComponent(`${CALLBACK_A};x`),
      encodeURIComponent(`${LEGACY_A}/redirect?to=${CALLBACK_A}`),
      encodeURIComponent(`${CALLBACK_A}#access_token=x`),
      "x".repeat(20000),
    ];
    for (const value of odd) {
      const answer = await browser.get(`/api/legacy_token?continue=${value}`);
      const location = answer.headers.get("location");
      expect(answer.status, value).toBeLessThan(500);
      expect(location ?? "", value).not.toContain("access_token");
    }
  });

  it("normalises the continue address as every redirect is, and then matches it whole", async () => {
    const person = await createPerson(server.app);
    const browser = new Browser(server);
    await browser.signIn(person.email);
    // The same address in another spelling (upper-case host, default port) is the registered one once normalised.
    for (const spelling of [CALLBACK_A, "HTTPS://WWW.ARCHVIZ.EXAMPLE/callback", `${LEGACY_A}:443/callback`]) {
      const answer = await browser.get(`/api/legacy_token?continue=${encodeURIComponent(spelling)}`);
      const location = new URL(String(answer.headers.get("location")));
      expect(`${location.origin}${location.pathname}${location.search}`, spelling).toBe(CALLBACK_A);
      expect(location.hash).toContain("access_token=");
    }
  });

  it("holds the token back from cross-site navigations only: the vendor's own sites are same-site", async () => {
    const person = await createPerson(server.app);
    const browser = new Browser(server);
    await browser.signIn(person.email);
    const ask = (site: string) =>
      browser.get(`/api/legacy_token?continue=${encodeURIComponent(CALLBACK_A)}`, { "sec-fetch-site": site });
    const crossSite = await ask("cross-site");
    expect([crossSite.status, crossSite.text.includes("access_token")]).toEqual([200, false]);
    // A brand's old site on the brand's own domain (www. beside login.) navigates same-site (docs/decisions.md).
    const sameSite = await ask("same-site");
    expect(String(sameSite.headers.get("location"))).toContain("#access_token=");
  });
});
