import { OIDC_API_RESOURCE } from "@gatehouse/contract";
import { createLocalJWKSet, type JSONWebKeySet, jwtVerify } from "jose";
import * as oidc from "openid-client";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startTrial } from "../src/accounts/trials.ts";
import { runAdmin } from "../src/admin/cli.ts";
import { sessionCookieName } from "../src/http/session.ts";
import { newSessionToken } from "../src/sessions/sessions.ts";
import { signIn } from "../src/signin/attempt.ts";
import { proofOf } from "../src/signin/proofs.ts";
import { usersStore } from "../src/store/users.ts";
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
  signedIn as signedInAt,
  startOidcServer,
} from "./oidc-harness.ts";
import { Listener } from "./oidc-loopback.ts";

const SITE_CALLBACK = "https://site.example/cb";
const SITE_BYE = "https://site.example/bye";
const PARTNER_CALLBACK = "https://partner.example/cb";

describe("openid-client as a relying party of the running provider", () => {
  let server: OidcServer;
  let site: oidc.Configuration;
  let partner: oidc.Configuration;
  let app: oidc.Configuration;
  let backchannel: Listener;
  const jwks = async () => createLocalJWKSet((await readJson(await fetch(`${server.issuer}/jwks`))) as JSONWebKeySet);

  beforeAll(async () => {
    backchannel = await Listener.start();
    server = await startOidcServer([
      {
        client_id: "site",
        client_secret: SITE_SECRET,
        redirect_uris: [SITE_CALLBACK],
        post_logout_redirect_uris: [SITE_BYE],
        backchannel_logout_uri: `http://127.0.0.1:${backchannel.port}/logout`,
        backchannel_logout_session_required: true,
        first_party: true,
      },
      { client_id: "partner", client_secret: SITE_SECRET, redirect_uris: [PARTNER_CALLBACK], brand: "cloud" },
      {
        client_id: "enscape",
        client_name: "Enscape",
        application_type: "native",
        redirect_uris: ["http://127.0.0.1/callback"],
        brand: "archviz",
        first_party: true,
      },
    ]);
    site = await discover(server, "site", SITE_SECRET);
    partner = await discover(server, "partner", SITE_SECRET);
    app = await discover(server, "enscape");
  });
  afterAll(async () => {
    await server.close();
    await backchannel.close();
  });

  const signedIn = () => signedInAt(server);

  const siteTokens = (browser: Browser, parameters: Record<string, string> = {}) =>
    codeFlowTokens(site, SITE_CALLBACK, browser, parameters);

  it("signs a person in to a web site with code + PKCE and hands out their claims at userinfo", async () => {
    const { person, browser } = await signedIn();
    const request = await codeRequest(site, SITE_CALLBACK);
    const callback = await browser.authorize(request.url);
    expect(callback.origin + callback.pathname).toBe(SITE_CALLBACK);
    const tokens = await oidc.authorizationCodeGrant(site, callback, { ...request.checks, idTokenExpected: true });
    // RFC 8176: the ID token says how the person signed in.
    expect(tokens.claims()).toMatchObject({ sub: person.id, iss: server.issuer, aud: "site", amr: ["pwd"] });
    const info = await oidc.fetchUserInfo(site, tokens.access_token, person.id);
    expect(info).toMatchObject({ sub: person.id, email: person.email, email_verified: true, given_name: "Ann" });
  });

  it("tells a product site of the person's trials with the trials scope, and only then (issue #12)", async () => {
    const { person, browser } = await signedIn();
    const user = await usersStore.findById(server.app.db, person.id);
    if (!user) throw new Error("no user row");
    await startTrial(server.app.db, user, { productCode: "RENDER-PRO", brand: "cloud" }, 1_800_000_000_000);
    const withTrials = (await siteTokens(browser, { scope: "openid trials" })).tokens;
    expect(await oidc.fetchUserInfo(site, withTrials.access_token, person.id)).toMatchObject({
      trials: [{ product_code: "RENDER-PRO", brand: "cloud", started_at: 1_800_000_000 }],
    });
    const without = (await siteTokens(browser, { scope: "openid email" })).tokens;
    expect(await oidc.fetchUserInfo(site, without.access_token, person.id)).not.toHaveProperty("trials");

    // A site that is not the vendor's own asks the person first, and the consent screen names it.
    const request = await codeRequest(partner, PARTNER_CALLBACK, { scope: "openid email trials" });
    await expect(browser.authorize(request.url)).rejects.toMatchObject({ status: 403, code: "consent_required" });
    expect((await browser.get("/api/service_login")).json.consent).toEqual(["openid", "email", "trials"]);
    const callback = await browser.authorize(request.url, { agree: true });
    const tokens = await oidc.authorizationCodeGrant(partner, callback, request.checks);
    expect((await oidc.fetchUserInfo(partner, tokens.access_token, person.id)).trials).toHaveLength(1);
  });

  it("says in the ID token's amr how the gateway session was opened: a mailed one-time code is otp, a federation fed", async () => {
    for (const [method, amr] of [
      ["activation", ["otp"]],
      ["social", ["fed"]],
    ] as const) {
      const person = await createPerson(server.app);
      const user = await usersStore.findById(server.app.db, person.id);
      if (!user) throw new Error("no user row");
      const opened = await signIn(
        server.app.db,
        proofOf(user, method, method === "social" ? "google" : undefined),
        { token: newSessionToken(), client: { ip: "127.0.0.1", userAgent: "test" } },
        { landing: "/profile/edit" },
        { selfOrigin: server.url, legacyOrigins: [] },
      );
      if (!opened.ok || !opened.session) throw new Error("sign-in refused");
      const browser = new Browser(server);
      browser.cookies.set(sessionCookieName(new URL(server.url)), opened.session);
      await browser.start();
      const request = await codeRequest(site, SITE_CALLBACK);
      const tokens = await oidc.authorizationCodeGrant(site, await browser.authorize(request.url), request.checks);
      expect(tokens.claims()?.amr, method).toEqual(amr);
    }
  });

  it("signs a person in to a desktop app through a loopback listener on any port, with a JWT for the API", async () => {
    const listener = await Listener.start();
    try {
      const { person, browser } = await signedIn();
      const redirectUri = `http://127.0.0.1:${listener.port}/callback`;
      const request = await codeRequest(app, redirectUri, { scope: "openid api" });
      const callback = await browser.authorize(request.url);
      expect(callback.port).toBe(String(listener.port));
      await fetch(callback); // the browser lands on the app's listener
      const received = await listener.next(0);
      const tokens = await oidc.authorizationCodeGrant(app, received.url, request.checks, {
        resource: OIDC_API_RESOURCE,
      });
      expect(tokens.refresh_token).toBeTruthy();
      // RFC 9068: the brand's API verifies it with the JWKS alone.
      const { payload, protectedHeader } = await jwtVerify(tokens.access_token, await jwks(), {
        issuer: server.issuer,
        audience: OIDC_API_RESOURCE,
        typ: "at+jwt",
      });
      expect(payload).toMatchObject({ sub: person.id, client_id: "enscape", scope: "api" });
      expect(protectedHeader.alg).toBe("ES256");
    } finally {
      await listener.close();
    }
  });

  it("rotates a desktop app's refresh token at every use, and a reused one ends the whole grant", async () => {
    const listener = await Listener.start();
    try {
      const { browser } = await signedIn();
      const redirectUri = `http://127.0.0.1:${listener.port}/callback`;
      const request = await codeRequest(app, redirectUri, { scope: "openid api" });
      const first = await oidc.authorizationCodeGrant(app, await browser.authorize(request.url), request.checks);
      const second = await oidc.refreshTokenGrant(app, first.refresh_token ?? "", { resource: OIDC_API_RESOURCE });
      expect(second.refresh_token).toBeTruthy();
      expect(second.refresh_token).not.toBe(first.refresh_token);
      await expect(oidc.refreshTokenGrant(app, first.refresh_token ?? "")).rejects.toMatchObject({
        error: "invalid_grant",
      });
      // The replay revoked the grant: the token the legitimate app holds now is refused too (RFC 9700 §4.14.2).
      await expect(oidc.refreshTokenGrant(app, second.refresh_token ?? "")).rejects.toMatchObject({
        error: "invalid_grant",
      });
    } finally {
      await listener.close();
    }
  });

  it("gives a desktop app that refreshes for the API alone (scope=api) its JWT without signing an ID token", async () => {
    const listener = await Listener.start();
    try {
      const { person, browser } = await signedIn();
      const redirectUri = `http://127.0.0.1:${listener.port}/callback`;
      const request = await codeRequest(app, redirectUri, { scope: "openid api" });
      const first = await oidc.authorizationCodeGrant(app, await browser.authorize(request.url), request.checks);
      // RFC 6749 §6: a narrower scope on refresh. Without openid the answer carries no ID token (OIDC Core §12.2).
      const apiOnly = await oidc.refreshTokenGrant(app, first.refresh_token ?? "", {
        resource: OIDC_API_RESOURCE,
        scope: "api",
      });
      expect(apiOnly.id_token).toBeUndefined();
      const { payload } = await jwtVerify(apiOnly.access_token, await jwks(), { audience: OIDC_API_RESOURCE });
      expect(payload).toMatchObject({ sub: person.id, scope: "api" });
      // The rotated refresh token keeps the whole grant: the next refresh may ask for an ID token again.
      const full = await oidc.refreshTokenGrant(app, apiOnly.refresh_token ?? "");
      expect(full.claims()?.sub).toBe(person.id);
    } finally {
      await listener.close();
    }
  });

  it("answers introspection, and revocation ends a token", async () => {
    const { person, browser } = await signedIn();
    const { tokens } = await siteTokens(browser);
    expect(await oidc.tokenIntrospection(site, tokens.access_token)).toMatchObject({
      active: true,
      sub: person.id,
      client_id: "site",
    });
    await oidc.tokenRevocation(site, tokens.access_token);
    expect(await oidc.tokenIntrospection(site, tokens.access_token)).toMatchObject({ active: false });
  });

  it("refuses a reused code and revokes what the first use issued", async () => {
    const { browser } = await signedIn();
    const request = await codeRequest(site, SITE_CALLBACK);
    const callback = await browser.authorize(request.url);
    const tokens = await oidc.authorizationCodeGrant(site, callback, request.checks);
    await expect(oidc.authorizationCodeGrant(site, callback, request.checks)).rejects.toMatchObject({
      error: "invalid_grant",
    });
    expect(await oidc.tokenIntrospection(site, tokens.access_token)).toMatchObject({ active: false });
  });

  it("refuses PKCE plain, a missing PKCE challenge, and the implicit flow for a client not marked legacy", async () => {
    const { browser } = await signedIn();
    const plain = oidc.buildAuthorizationUrl(site, {
      redirect_uri: SITE_CALLBACK,
      scope: "openid",
      code_challenge: oidc.randomPKCECodeVerifier(),
      code_challenge_method: "plain",
      state: "s",
    });
    const missing = oidc.buildAuthorizationUrl(site, { redirect_uri: SITE_CALLBACK, scope: "openid", state: "s" });
    const implicit = oidc.buildAuthorizationUrl(site, {
      redirect_uri: SITE_CALLBACK,
      scope: "openid",
      response_type: "id_token token",
      nonce: "n",
      state: "s",
    });
    for (const [url, error] of [
      [plain, "invalid_request"],
      [missing, "invalid_request"],
      [implicit, "invalid_request"], // "requested response_type is not allowed for this client"
    ] as const) {
      const callback = await browser.authorize(url);
      const answer = new URLSearchParams(callback.hash.slice(1) || callback.search);
      expect(callback.origin + callback.pathname).toBe(SITE_CALLBACK);
      expect(answer.get("error"), answer.get("error_description") ?? "").toBe(error);
      expect(answer.has("code")).toBe(false);
      expect(answer.has("access_token")).toBe(false);
    }
  });

  it("refuses a redirect URI that is not exactly registered, on our error page", async () => {
    const { browser } = await signedIn();
    for (const redirect of [
      `${SITE_CALLBACK}/`,
      `${SITE_CALLBACK}?x=1`,
      "https://SITE.example/cb",
      "https://evil.example/cb",
    ]) {
      const request = await codeRequest(site, redirect);
      const landed = await browser.authorize(request.url);
      expect(landed.pathname).toBe("/error");
      expect(landed.searchParams.get("error_code")).toBe("service_request_invalid");
    }
  });

  it("ends the session at end-session: gateway session, provider session and back-channel logout", async () => {
    const { person, browser } = await signedIn();
    const { tokens } = await siteTokens(browser);
    const before = backchannel.received.length;
    const endSession = oidc.buildEndSessionUrl(site, {
      id_token_hint: tokens.id_token ?? "",
      post_logout_redirect_uri: SITE_BYE,
      state: "bye",
    });
    const page = await browser.visit(endSession.href);
    expect(page.status).toBe(200);
    const action = /action="([^"]+)"/u.exec(page.text)?.[1] ?? "";
    const xsrf = /name="xsrf" value="([^"]+)"/u.exec(page.text)?.[1] ?? "";
    const confirmed = await browser.request(
      "POST",
      new URL(action).pathname,
      new URLSearchParams({ xsrf, logout: "yes" }).toString(),
      { "content-type": "application/x-www-form-urlencoded" },
    );
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.get("location")).toBe(`${SITE_BYE}?state=bye`);
    expect((await browser.get("/api/session")).status).toBe(204);
    const logout = await backchannel.next(before);
    const token = new URLSearchParams(logout.body).get("logout_token") ?? "";
    const { payload } = await jwtVerify(token, await jwks(), { issuer: server.issuer, audience: "site" });
    expect(payload.sub).toBe(person.id);
    expect(payload.events).toEqual({ "http://schemas.openid.net/event/backchannel-logout": {} });
    expect(payload.sid).toEqual(tokens.claims()?.sid);
    expect(payload).not.toHaveProperty("nonce");
    // The token issued under that session is gone with it.
    expect(await oidc.tokenIntrospection(site, tokens.access_token)).toMatchObject({ active: false });
  });

  it("signs nobody out of the gateway through end-session when they were not signed in to the provider", async () => {
    const { browser } = await signedIn();
    const page = await browser.visit(`${server.issuer}/session/end`);
    const xsrf = /name="xsrf" value="([^"]+)"/u.exec(page.text)?.[1] ?? "";
    const confirmed = await browser.request(
      "POST",
      "/oidc/session/end/confirm",
      new URLSearchParams({ xsrf, logout: "yes" }).toString(),
      { "content-type": "application/x-www-form-urlencoded" },
    );
    expect(confirmed.status).toBe(303);
    expect((await browser.get("/api/session")).status).toBe(200);
  });

  it("asks for a click at end-session without an id_token_hint, so a link alone signs nobody out", async () => {
    const { browser } = await signedIn();
    await siteTokens(browser);
    const page = await browser.visit(`${server.issuer}/session/end?client_id=site`);
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/<button type="submit"[^>]*>Sign out<\/button>/u);
    expect(page.text).not.toContain("<script");
    expect((await browser.get("/api/session")).status).toBe(200);
  });

  it("ends a desktop app's sign-out without a post-logout address on the ULA sign-out page", async () => {
    const { browser } = await signedIn();
    await siteTokens(browser);
    const page = await browser.visit(`${server.issuer}/session/end?client_id=enscape`);
    const xsrf = /name="xsrf" value="([^"]+)"/u.exec(page.text)?.[1] ?? "";
    const confirmed = await browser.request(
      "POST",
      "/oidc/session/end/confirm",
      new URLSearchParams({ xsrf, logout: "yes" }).toString(),
      { "content-type": "application/x-www-form-urlencoded" },
    );
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.get("location")).toBe("/ula-logout-success");
    expect((await browser.get("/api/session")).status).toBe(204);
  });

  it("refuses a post-logout redirect the client did not register, on our error page", async () => {
    const { browser } = await signedIn();
    const { tokens } = await siteTokens(browser);
    const endSession = oidc.buildEndSessionUrl(site, {
      id_token_hint: tokens.id_token ?? "",
      post_logout_redirect_uri: "https://evil.example/bye",
    });
    const answer = await browser.visit(endSession.href);
    expect(answer.status).toBe(303);
    expect(new URL(answer.location ?? "").pathname).toBe("/error");
    expect((await browser.get("/api/session")).status).toBe(200);
  });

  it("signing out of the gateway ends the provider's session and sends the back-channel logout", async () => {
    const { person, browser } = await signedIn();
    const { tokens } = await siteTokens(browser);
    const before = backchannel.received.length;
    expect((await browser.post("/api/account/logout")).status).toBe(200);
    const logout = await backchannel.next(before);
    const token = new URLSearchParams(logout.body).get("logout_token") ?? "";
    const { payload } = await jwtVerify(token, await jwks(), { issuer: server.issuer, audience: "site" });
    expect(payload).toMatchObject({ sub: person.id, sid: tokens.claims()?.sid });
    expect(await oidc.tokenIntrospection(site, tokens.access_token)).toMatchObject({ active: false });
    const silent = await codeRequest(site, SITE_CALLBACK, { prompt: "none" });
    const callback = await browser.authorize(silent.url);
    expect(callback.searchParams.get("error")).toBe("login_required");
  });

  it("a password change elsewhere ends the provider sessions under the other gateway sessions, with back-channel logout", async () => {
    const { person, browser } = await signedIn();
    const { tokens } = await siteTokens(browser);
    const before = backchannel.received.length;
    const elsewhere = new Browser(server);
    await elsewhere.signIn(person.email);
    const changed = await elsewhere.post("/api/account/change_password", {
      oldPassword: PASSWORD,
      password: "Another-Long-Passphrase-93!",
    });
    expect(changed.status).toBe(200);
    const logout = await backchannel.next(before);
    const token = new URLSearchParams(logout.body).get("logout_token") ?? "";
    const { payload } = await jwtVerify(token, await jwks(), { issuer: server.issuer, audience: "site" });
    expect(payload).toMatchObject({ sub: person.id, sid: tokens.claims()?.sid });
    expect(await oidc.tokenIntrospection(site, tokens.access_token)).toMatchObject({ active: false });
  });

  it("another person signing in in the same browser signs the first one out of the sites", async () => {
    const { person, browser } = await signedIn();
    const { tokens } = await siteTokens(browser);
    const before = backchannel.received.length;
    const other = await createPerson(server.app);
    await browser.signIn(other.email);
    const logout = await backchannel.next(before);
    const token = new URLSearchParams(logout.body).get("logout_token") ?? "";
    const { payload } = await jwtVerify(token, await jwks(), { issuer: server.issuer, audience: "site" });
    expect(payload).toMatchObject({ sub: person.id });
    expect(await oidc.tokenIntrospection(site, tokens.access_token)).toMatchObject({ active: false });
  });

  it("never reuses a provider session whose gateway session has ended, however it ended", async () => {
    const { browser } = await signedIn();
    await siteTokens(browser);
    // The gateway session ends without the sign-out call (expiry, another node's sweep): the provider's stays.
    await server.app.db.deleteFrom("sessions").execute();
    const silent = await codeRequest(site, SITE_CALLBACK, { prompt: "none" });
    const callback = await browser.authorize(silent.url);
    expect(callback.searchParams.get("error")).toBe("login_required");
    const again = await codeRequest(site, SITE_CALLBACK);
    await expect(browser.authorize(again.url)).rejects.toMatchObject({ status: 401, code: "not_authenticated" });
  });

  it("asks for a fresh sign-in when the site says prompt=login or max_age, then finishes", async () => {
    const { person, browser } = await signedIn();
    for (const parameters of [{ prompt: "login" }, { max_age: "0" }] as Record<string, string>[]) {
      const request = await codeRequest(site, SITE_CALLBACK, parameters);
      await expect(browser.authorize(request.url)).rejects.toMatchObject({ status: 401, code: "not_authenticated" });
      expect((await browser.get("/api/service_login")).json).toMatchObject({ signInRequired: true });
      // auth_time counts whole seconds: the fresh sign-in must fall in a later one than the first.
      const second = Math.floor(Date.now() / 1000);
      await vi.waitFor(() => expect(Math.floor(Date.now() / 1000)).toBeGreaterThan(second), {
        interval: 20,
        timeout: 3000,
      });
      await browser.signIn(person.email);
      expect((await browser.get("/api/service_login")).json).toMatchObject({ signInRequired: false });
      const finished = await browser.post("/api/service_login/finish", {});
      const callback = await browser.authorize(finished.json.redirect_to);
      const tokens = await oidc.authorizationCodeGrant(site, callback, request.checks);
      expect(tokens.claims()?.sub).toBe(person.id);
    }
  });

  it("lets a person who owes a password change reach a site only once it is done (issue #24)", async () => {
    const person = await createPerson(server.app, { requirePasswordUpdate: true });
    const browser = new Browser(server);
    await browser.start();
    const request = await codeRequest(site, SITE_CALLBACK);
    // The sign-in made for the site owes the step: its next is the step's screen, and no session is open.
    const answer = await browser.post("/api/account/login", {
      email: person.email,
      password: PASSWORD,
      returnTo: "/service_login",
    });
    expect(answer.json.next).toEqual({
      kind: "step",
      url: `/account/password-change?required_password_update=true&return_to=${encodeURIComponent("/service_login")}`,
    });
    await expect(browser.authorize(request.url)).rejects.toMatchObject({ status: 401, code: "not_authenticated" });
    // Done, it goes back to the provider's sign-in, which finishes for the site.
    const changed = await browser.post("/api/account/change_password", {
      oldPassword: PASSWORD,
      password: "Copper-Lantern-91!",
    });
    expect(changed.json).toEqual({ next: { kind: "provider", url: "/service_login" } });
    const callback = await browser.authorize(request.url);
    expect((await oidc.authorizationCodeGrant(site, callback, request.checks)).access_token).toBeTruthy();
  });

  it("shows the sign-in in the client's brand and asks a client that is not the vendor's own for consent", async () => {
    const { person, browser } = await signedIn();
    const request = await codeRequest(partner, PARTNER_CALLBACK, { login_hint: "ann@example.com" });
    await expect(browser.authorize(request.url)).rejects.toMatchObject({ status: 403, code: "consent_required" });
    expect((await browser.get("/api/service_login")).json).toEqual({
      client: { id: "partner", name: "Cloud Render", brand: "cloud", native: false },
      loginHint: "ann@example.com",
      signInRequired: false,
      consent: ["openid", "email", "profile"],
      account: { name: "Ann Lee", email: person.email },
      restartUrl: expect.stringMatching(/^\/oidc\/auth\?/u),
    });
    const callback = await browser.authorize(request.url, { agree: true });
    expect((await oidc.authorizationCodeGrant(partner, callback, request.checks)).access_token).toBeTruthy();
  });

  it("sends a declined sign-in back to the site as access_denied", async () => {
    const { browser } = await signedIn();
    const request = await codeRequest(partner, PARTNER_CALLBACK);
    await expect(browser.authorize(request.url)).rejects.toMatchObject({ code: "consent_required" });
    const declined = await browser.post("/api/service_login/abort", {});
    const callback = await browser.authorize(declined.json.redirect_to);
    expect(callback.searchParams.get("error")).toBe("access_denied");
  });

  it("answers 404 for a sign-in that is gone", async () => {
    const browser = new Browser(server);
    await browser.start();
    expect((await browser.get("/api/service_login")).status).toBe(404);
    expect((await browser.post("/api/service_login/finish", {})).json).toMatchObject({ error_code: "not_found" });
  });
});

describe("signing key rotation across nodes", () => {
  it("breaks neither tokens already issued nor a node not yet restarted", async () => {
    const client = { client_id: "site", client_secret: SITE_SECRET, redirect_uris: [SITE_CALLBACK], first_party: true };
    const old = await startOidcServer([client]);
    try {
      const person = await createPerson(old.app);
      const tokensFrom = async (node: OidcServer) => {
        const browser = new Browser(node);
        await browser.signIn(person.email);
        const config = await discover(node, "site", SITE_SECRET);
        const request = await codeRequest(config, SITE_CALLBACK, { scope: "openid api" });
        return oidc.authorizationCodeGrant(config, await browser.authorize(request.url), request.checks, {
          resource: OIDC_API_RESOURCE,
        });
      };
      const jwksOf = async (node: OidcServer) =>
        createLocalJWKSet((await readJson(await fetch(`${node.issuer}/jwks`))) as JSONWebKeySet);
      const verify = async (token: string, node: OidcServer) =>
        (await jwtVerify(token, await jwksOf(node), { audience: OIDC_API_RESOURCE })).protectedHeader.kid;

      const before = await tokensFrom(old);
      const rotated = await runAdmin(["keys:rotate"], {
        DATABASE_URL: old.databaseUrl,
        SESSION_SECRET: "test-secret-that-is-long-enough-123456",
      });
      expect(rotated.code).toBe(0);
      // A node started after the rotation, on the same database, as a restarted node would be.
      const restarted = await startOidcServer([client], { databaseUrl: old.databaseUrl });
      try {
        const after = await tokensFrom(restarted);
        const oldKid = await verify(before.access_token, restarted); // the restarted node still publishes the old key
        const newKid = await verify(after.access_token, old); // the old node already published the new one
        expect(newKid).not.toBe(oldKid);
        // The node not yet restarted keeps signing with its key, which the restarted node verifies.
        const stillOld = await tokensFrom(old);
        expect(await verify(stillOld.access_token, restarted)).toBe(oldKid);
      } finally {
        await restarted.close();
      }
    } finally {
      await old.close();
    }
  });
});
