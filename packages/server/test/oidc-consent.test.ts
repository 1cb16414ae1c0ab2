/**
 * Issue #24 §2: what a site that is not the vendor's own receives (consent, `openid` alone included), when a token
 * for the brands' API is issued, whose tokens a client may introspect, and end-session's refusals on our error page.
 */
import { OIDC_API_RESOURCE } from "@gatehouse/contract";
import { createLocalJWKSet, decodeJwt, type JSONWebKeySet, jwtVerify } from "jose";
import * as oidc from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  codeRequest,
  createPerson,
  discover,
  type OidcServer,
  readJson,
  SITE_SECRET,
  signedIn as signedInAt,
  startOidcServer,
} from "./oidc-harness.ts";

const SITE_CALLBACK = "https://site.example/cb";
const SITE_BYE = "https://site.example/bye";
const PARTNER_CALLBACK = "https://partner.example/cb";

describe("consent, API tokens, introspection and end-session errors (issue #24 §2)", () => {
  let server: OidcServer;
  let site: oidc.Configuration;
  let partner: oidc.Configuration;
  const jwks = async () => createLocalJWKSet((await readJson(await fetch(`${server.issuer}/jwks`))) as JSONWebKeySet);

  beforeAll(async () => {
    server = await startOidcServer([
      {
        client_id: "site",
        client_secret: SITE_SECRET,
        redirect_uris: [SITE_CALLBACK],
        post_logout_redirect_uris: [SITE_BYE],
        first_party: true,
      },
      { client_id: "partner", client_name: "Partner", client_secret: SITE_SECRET, redirect_uris: [PARTNER_CALLBACK] },
    ]);
    site = await discover(server, "site", SITE_SECRET);
    partner = await discover(server, "partner", SITE_SECRET);
  });
  afterAll(async () => {
    await server.close();
  });

  const signedIn = () => signedInAt(server);

  /** The error an authorization request's callback carries, and whether it carries a code. */
  const callbackAnswer = (callback: URL) => {
    const answer = new URLSearchParams(callback.hash.slice(1) || callback.search);
    return { error: answer.get("error"), code: answer.has("code") };
  };

  /** Whether an access token is a JWT for the brands' API (verified with the JWKS, its audience the API's). */
  async function isApiToken(token: string): Promise<boolean> {
    try {
      await jwtVerify(token, await jwks(), { issuer: server.issuer, audience: OIDC_API_RESOURCE });
      return true;
    } catch {
      return false;
    }
  }

  it("asks consent of a third-party client that asks for openid alone, naming the account, and issues nothing before it", async () => {
    const { person, browser } = await signedIn();
    const request = await codeRequest(partner, PARTNER_CALLBACK, { scope: "openid" });
    await expect(browser.authorize(request.url)).rejects.toMatchObject({ status: 403, code: "consent_required" });
    expect((await browser.get("/api/service_login")).json).toMatchObject({
      signInRequired: false,
      consent: ["openid"],
      account: { name: "Ann Lee", email: person.email },
    });
    // Nothing reaches the site while the person has not agreed: the finish is refused again.
    const refused = await browser.post("/api/service_login/finish", { consent: false });
    expect(refused.json).toMatchObject({ error_code: "consent_required" });

    const callback = await browser.authorize(request.url, { agree: true });
    const tokens = await oidc.authorizationCodeGrant(partner, callback, request.checks);
    expect(tokens.claims()?.sub).toBe(person.id);
    // Agreed once: the next sign-in of the same site finishes without asking.
    const again = await codeRequest(partner, PARTNER_CALLBACK, { scope: "openid" });
    expect(callbackAnswer(await browser.authorize(again.url)).code).toBe(true);
  });

  it("gives a third-party client that consented to openid alone no token for the API, and not by default", async () => {
    const { browser } = await signedIn();
    const request = await codeRequest(partner, PARTNER_CALLBACK, { scope: "openid" });
    const callback = await browser.authorize(request.url, { agree: true });
    const code = new URL(callback).searchParams.get("code");
    expect(code).toBeTruthy();
    // Naming the API at the token request: refused (RFC 8707 invalid_target), nothing issued.
    await expect(
      oidc.authorizationCodeGrant(partner, callback, request.checks, { resource: OIDC_API_RESOURCE }),
    ).rejects.toMatchObject({ error: "invalid_target" });
    // The same sign-in without naming it: the opaque token userinfo accepts, not the API's.
    const again = await codeRequest(partner, PARTNER_CALLBACK, { scope: "openid" });
    const tokens = await oidc.authorizationCodeGrant(partner, await browser.authorize(again.url), again.checks);
    expect(tokens.access_token.split(".")).toHaveLength(1);
    expect(await isApiToken(tokens.access_token)).toBe(false);
  });

  it("refuses a third-party client that names the API without the api scope: no API token", async () => {
    const { browser } = await signedIn();
    const request = await codeRequest(partner, PARTNER_CALLBACK, { scope: "openid", resource: OIDC_API_RESOURCE });
    const callback = await browser.authorize(request.url, { agree: true });
    expect(callback.origin + callback.pathname).toBe(PARTNER_CALLBACK);
    expect(callbackAnswer(callback)).toEqual({ error: "invalid_target", code: false });
  });

  it("issues a third-party client an API token once the person agreed to the api scope", async () => {
    const { person, browser } = await signedIn();
    const request = await codeRequest(partner, PARTNER_CALLBACK, { scope: "openid api", resource: OIDC_API_RESOURCE });
    await expect(browser.authorize(request.url)).rejects.toMatchObject({ code: "consent_required" });
    expect((await browser.get("/api/service_login")).json.consent).toEqual(["openid", "api"]);
    const callback = await browser.authorize(request.url, { agree: true });
    const tokens = await oidc.authorizationCodeGrant(partner, callback, request.checks, {
      resource: OIDC_API_RESOURCE,
    });
    const { payload } = await jwtVerify(tokens.access_token, await jwks(), { audience: OIDC_API_RESOURCE });
    expect(payload).toMatchObject({ sub: person.id, client_id: "partner", scope: "api" });
  });

  it("gives a first-party client the API by default only when it asks for api", async () => {
    const { person, browser } = await signedIn();
    const withApi = await codeRequest(site, SITE_CALLBACK, { scope: "openid api" });
    const tokens = await oidc.authorizationCodeGrant(site, await browser.authorize(withApi.url), withApi.checks, {
      resource: OIDC_API_RESOURCE,
    });
    const { payload } = await jwtVerify(tokens.access_token, await jwks(), { audience: OIDC_API_RESOURCE });
    expect(payload).toMatchObject({ sub: person.id, client_id: "site", scope: "api" });

    const withoutApi = await codeRequest(site, SITE_CALLBACK, { scope: "openid" });
    const callback = await browser.authorize(withoutApi.url);
    await expect(
      oidc.authorizationCodeGrant(site, callback, withoutApi.checks, { resource: OIDC_API_RESOURCE }),
    ).rejects.toMatchObject({ error: "invalid_target" });
  });

  it("answers introspection only for the calling client's own tokens", async () => {
    const { person, browser } = await signedIn();
    const request = await codeRequest(site, SITE_CALLBACK);
    const tokens = await oidc.authorizationCodeGrant(site, await browser.authorize(request.url), request.checks);
    expect(await oidc.tokenIntrospection(partner, tokens.access_token)).toEqual({ active: false });
    expect(await oidc.tokenIntrospection(site, tokens.access_token)).toMatchObject({
      active: true,
      sub: person.id,
      client_id: "site",
    });
  });

  it("lets a person use another account: signed out, the site's request starts over with the sign-in form", async () => {
    const { browser } = await signedIn();
    const request = await codeRequest(partner, PARTNER_CALLBACK, { scope: "openid" });
    await expect(browser.authorize(request.url)).rejects.toMatchObject({ code: "consent_required" });
    const { restartUrl } = (await browser.get("/api/service_login")).json;
    expect((await browser.post("/api/account/logout", {})).status).toBe(200);

    const restarted = await browser.visit(restartUrl);
    expect(new URL(restarted.location ?? "").pathname).toBe("/service_login");
    expect((await browser.get("/api/service_login")).json).toMatchObject({ signInRequired: true });
    expect((await browser.get("/api/service_login")).json.account).toBeUndefined();

    const other = await createPerson(server.app);
    await browser.signIn(other.email);
    expect((await browser.get("/api/service_login")).json).toMatchObject({
      signInRequired: false,
      consent: ["openid"],
      account: { email: other.email },
    });
    const finished = await browser.post("/api/service_login/finish", { consent: true });
    const callback = await browser.authorize(finished.json.redirect_to);
    const tokens = await oidc.authorizationCodeGrant(partner, callback, request.checks);
    expect(tokens.claims()?.sub).toBe(other.id);
  });

  describe("end-session refusals show our error page, whatever the request accepts", () => {
    async function expectErrorPage(path: string, accept: string | undefined) {
      const answer = await fetch(`${server.url}${path}`, {
        redirect: "manual",
        ...(accept ? { headers: { accept } } : {}),
      });
      expect(answer.status, `${path} (${accept})`).toBe(303);
      expect(answer.headers.get("content-type") ?? "").not.toContain("json");
      const location = new URL(answer.headers.get("location") ?? "", server.url);
      expect(location.pathname).toBe("/error");
      expect(location.searchParams.get("error_code")).toBe("service_request_invalid");
      const page = await fetch(location);
      expect(page.headers.get("content-type")).toContain("text/html");
      expect(await page.text()).toContain("<html");
    }

    it("for an id_token_hint it cannot verify", async () => {
      const forged = `eyJhbGciOiJSUzI1NiJ9.${Buffer.from(JSON.stringify({ aud: "site", sub: "x" })).toString("base64url")}.c2ln`;
      for (const hint of ["not-a-token", forged]) {
        for (const accept of [undefined, "application/json", "*/*"]) {
          await expectErrorPage(`/oidc/session/end?${new URLSearchParams({ id_token_hint: hint })}`, accept);
        }
      }
    });

    it("for a post-logout address the client did not register", async () => {
      const { browser } = await signedIn();
      const request = await codeRequest(site, SITE_CALLBACK);
      const tokens = await oidc.authorizationCodeGrant(site, await browser.authorize(request.url), request.checks);
      expect(decodeJwt(tokens.id_token ?? "").aud).toBe("site");
      const query = new URLSearchParams({
        id_token_hint: tokens.id_token ?? "",
        post_logout_redirect_uri: "https://evil.example/bye",
      });
      for (const accept of [undefined, "application/json"]) {
        await expectErrorPage(`/oidc/session/end?${query}`, accept);
      }
    });
  });
});
