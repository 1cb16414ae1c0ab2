import { randomBytes } from "node:crypto";
import { OIDC_API_RESOURCE, PASSWORD_RESET_TTL_MS, SECURITY_PAGE_SIZE } from "@gatehouse/contract";
import { createLocalJWKSet, type JSONWebKeySet, jwtVerify } from "jose";
import * as oidc from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAdmin } from "../src/admin/cli.ts";
import { issueCode } from "../src/codes/codes.ts";
import { totpCode } from "../src/factors/totp.ts";
import { describeDatabases, expectErrorObject, freshPostgres } from "./harness.ts";
import {
  Browser,
  codeRequest,
  discover,
  FinishError,
  type OidcServer,
  PASSWORD,
  readJson,
  SITE_SECRET,
  signedIn as signedInAt,
  startOidcServer,
} from "./oidc-harness.ts";
import { Listener } from "./oidc-loopback.ts";

/**
 * Issue #27, "Apps with access": the person's grants on their security page, removing one's access (its refresh and
 * access tokens fail at once), and the account changes that end every app's access, offline ones included.
 */
const PARTNER_CALLBACK = "https://partner.example/cb";
/** The desktop app's loopback address: the provider accepts any port of it (RFC 8252 §7.3); nothing listens. */
const DESKTOP_CALLBACK = "http://127.0.0.1:49152/callback";
const NEW_PASSWORD = "Another-Long-Passphrase-93!";
const SESSION_SECRET = "test-secret-that-is-long-enough-123456";
/** Clients enough for two pages of the list. */
const SHOPS = Array.from({ length: SECURITY_PAGE_SIZE + 2 }, (_, i) => `shop-${String(i).padStart(2, "0")}`);

describeDatabases([
  ["SQLite", async () => undefined],
  ["PostgreSQL", freshPostgres],
])("apps with access (%s)", (_name, database) => {
  let server: OidcServer;
  let partner: oidc.Configuration;
  let desktop: oidc.Configuration;
  let backchannel: Listener;

  beforeAll(async () => {
    backchannel = await Listener.start();
    const databaseUrl = await database();
    server = await startOidcServer(
      [
        // A site that is not the vendor's own: the person agrees on the consent screen.
        {
          client_id: "partner",
          client_name: "Partner Renders",
          client_secret: SITE_SECRET,
          redirect_uris: [PARTNER_CALLBACK],
          brand: "cloud",
          backchannel_logout_uri: `http://127.0.0.1:${backchannel.port}/logout`,
          backchannel_logout_session_required: true,
        },
        // The vendor's desktop app: a public native client.
        {
          client_id: "enscape",
          client_name: "Enscape",
          application_type: "native",
          redirect_uris: ["http://127.0.0.1/callback"],
          brand: "archviz",
          first_party: true,
        },
        ...SHOPS.map((id) => ({
          client_id: id,
          client_name: id,
          client_secret: SITE_SECRET,
          redirect_uris: [`https://${id}.example/cb`],
        })),
      ],
      databaseUrl ? { databaseUrl } : {},
    );
    partner = await discover(server, "partner", SITE_SECRET);
    desktop = await discover(server, "enscape");
  });
  afterAll(async () => {
    await server?.close();
    await backchannel.close();
  });

  const signedIn = () => signedInAt(server);

  /** The desktop app's sign-in with `offline_access` (granted only with prompt=consent, OIDC Core §11). */
  async function desktopOffline(browser: Browser) {
    const request = await codeRequest(desktop, DESKTOP_CALLBACK, { scope: "openid offline_access", prompt: "consent" });
    const tokens = await oidc.authorizationCodeGrant(desktop, await browser.authorize(request.url), request.checks);
    if (!tokens.refresh_token) throw new Error("no refresh token");
    return tokens;
  }

  /** The partner site's sign-in with `offline_access`, agreed on the consent screen. */
  async function partnerOffline(browser: Browser) {
    const request = await codeRequest(partner, PARTNER_CALLBACK, {
      scope: "openid email offline_access",
      prompt: "consent",
    });
    await expect(browser.authorize(request.url)).rejects.toBeInstanceOf(FinishError);
    const callback = await browser.authorize(request.url, { agree: true });
    const tokens = await oidc.authorizationCodeGrant(partner, callback, request.checks);
    if (!tokens.refresh_token) throw new Error("no refresh token");
    return tokens;
  }

  /** A refresh token still works: answers the one to use next (a public client's rotates at every use). */
  async function stillWorks(config: oidc.Configuration, refreshToken: string): Promise<string> {
    const tokens = await oidc.refreshTokenGrant(config, refreshToken);
    return tokens.refresh_token ?? refreshToken;
  }

  async function expectRevoked(config: oidc.Configuration, refreshToken: string) {
    await expect(oidc.refreshTokenGrant(config, refreshToken)).rejects.toMatchObject({ error: "invalid_grant" });
  }

  const appsOf = async (browser: Browser) => {
    const answer = await browser.get("/api/account/apps");
    expect(answer.status).toBe(200);
    return answer.json.apps as { id: string; name: string; offline: boolean; lastUsedAt: number | null }[];
  };

  const grantsOf = (userId: string) =>
    server.app.db
      .selectFrom("oidc_models")
      .select("id")
      .where("model", "=", "Grant")
      .where("account_id", "=", userId)
      .execute();

  const auditOf = (userId: string, event: string) =>
    server.app.db
      .selectFrom("audit")
      .select(["detail", "country"])
      .where("user_id", "=", userId)
      .where("event", "=", event)
      .execute();

  describe("the list", () => {
    it("shows a granted client with its name, brand, scopes and offline access, and when it was last used", async () => {
      const { person, browser } = await signedIn();
      const before = Date.now();
      const partnerTokens = await partnerOffline(browser);
      const request = await codeRequest(desktop, DESKTOP_CALLBACK, { scope: "openid" });
      await oidc.authorizationCodeGrant(desktop, await browser.authorize(request.url), request.checks);
      const listed = await browser.get("/api/account/apps");
      expect(listed.json).toEqual({
        apps: expect.arrayContaining([
          {
            id: expect.any(String),
            name: "Partner Renders",
            brand: "cloud",
            scopes: ["openid", "email", "offline_access"],
            grantedAt: expect.any(Number),
            lastUsedAt: expect.any(Number),
            offline: true,
          },
          expect.objectContaining({ name: "Enscape", brand: "archviz", scopes: ["openid"], offline: false }),
        ]),
        nextCursor: null,
      });
      expect(listed.json.apps).toHaveLength(2);
      const entry = listed.json.apps.find((app: { name: string }) => app.name === "Partner Renders");
      // The grant's `iat` (whole seconds) in ms.
      expect(entry.grantedAt).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
      expect(entry.grantedAt).toBeLessThanOrEqual(Date.now());

      // A refresh is a use: the newest token issued under the grant.
      const refreshedAt = Date.now();
      await stillWorks(partner, partnerTokens.refresh_token ?? "");
      const [after] = (await appsOf(browser)).filter((app) => app.name === "Partner Renders");
      expect(after?.lastUsedAt).toBeGreaterThanOrEqual(refreshedAt);
      expect(after?.id).toBe(entry.id);

      // The consent is in the person's activity, with the client's id; the vendor's own app needed none.
      expect(await auditOf(person.id, "app_granted")).toEqual([{ detail: "partner", country: null }]);
      // Nothing of it in another person's list.
      expect(await appsOf((await signedIn()).browser)).toEqual([]);
    });

    it("shows a client granted in two browsers once, and removing it ends both", async () => {
      const { person, browser } = await signedIn();
      const first = await desktopOffline(browser);
      const other = new Browser(server);
      await other.signIn(person.email);
      const second = await desktopOffline(other);
      const apps = await appsOf(browser);
      expect(apps).toHaveLength(1);
      expect(await grantsOf(person.id)).toHaveLength(2);
      expect((await browser.request("DELETE", `/api/account/apps/${apps[0]?.id}`)).status).toBe(200);
      await expectRevoked(desktop, first.refresh_token ?? "");
      await expectRevoked(desktop, second.refresh_token ?? "");
      expect(await appsOf(other)).toEqual([]);
    });

    it("pages newest first with a cursor, and refuses a cursor it did not make", async () => {
      const { person, browser } = await signedIn();
      const { provider } = server.app.services.oidc;
      for (const clientId of SHOPS) {
        const grant = new provider.Grant({ accountId: person.id, clientId });
        grant.addOIDCScope("openid email");
        // The brands' API is a resource's scope: the page names it with the OpenID ones.
        if (clientId === SHOPS[0]) grant.addResourceScope(OIDC_API_RESOURCE, "api");
        await grant.save();
      }
      const first = await browser.get("/api/account/apps");
      expect(first.json.apps).toHaveLength(SECURITY_PAGE_SIZE);
      expect(first.json.nextCursor).toEqual(expect.any(String));
      const second = await browser.get(`/api/account/apps?cursor=${encodeURIComponent(first.json.nextCursor)}`);
      expect(second.json.apps).toHaveLength(SHOPS.length - SECURITY_PAGE_SIZE);
      expect(second.json.nextCursor).toBeNull();
      const all = [...first.json.apps, ...second.json.apps] as {
        id: string;
        name: string;
        scopes: string[];
        grantedAt: number;
      }[];
      expect(new Set(all.map((app) => app.id)).size).toBe(SHOPS.length);
      const newestFirst = [...all].sort((a, b) => b.grantedAt - a.grantedAt || (a.id < b.id ? 1 : -1));
      expect(all).toEqual(newestFirst);
      const scopesOf = (name: string) => all.find((app) => app.name === name);
      expect(scopesOf(SHOPS[0] ?? "")?.scopes).toEqual(["openid", "email", "api"]);
      expect(scopesOf(SHOPS[1] ?? "")?.scopes).toEqual(["openid", "email"]);
      for (const cursor of ["not-ours", Buffer.from("12.").toString("base64url"), `${first.json.nextCursor}!`]) {
        expectErrorObject(
          await browser.get(`/api/account/apps?cursor=${encodeURIComponent(cursor)}`),
          400,
          "invalid_request",
        );
      }
    });

    it("is the signed-in person's only", async () => {
      const browser = new Browser(server);
      await browser.start();
      expectErrorObject(await browser.get("/api/account/apps"), 401, "not_authenticated");
    });
  });

  describe("removing an app's access", () => {
    it("revokes its refresh and access tokens, ends its provider session with a back-channel logout, and says so", async () => {
      const { person, browser } = await signedIn();
      const tokens = await partnerOffline(browser);
      const desktopTokens = await desktopOffline(browser);
      const [entry] = (await appsOf(browser)).filter((app) => app.name === "Partner Renders");
      expect(await oidc.tokenIntrospection(partner, tokens.access_token)).toMatchObject({ active: true });
      const before = backchannel.received.length;

      expect((await browser.request("DELETE", `/api/account/apps/${entry?.id}`)).status).toBe(200);

      await expectRevoked(partner, tokens.refresh_token ?? "");
      const userinfo = await fetch(partner.serverMetadata().userinfo_endpoint ?? "", {
        headers: { authorization: `Bearer ${tokens.access_token}` },
      });
      expect(userinfo.status).toBe(401);
      expect(await oidc.tokenIntrospection(partner, tokens.access_token)).toMatchObject({ active: false });
      // OIDC Back-Channel Logout 1.0: the site hears of the session it had.
      const logout = await backchannel.next(before);
      const jwks = createLocalJWKSet((await readJson(await fetch(`${server.issuer}/jwks`))) as JSONWebKeySet);
      const { payload } = await jwtVerify(new URLSearchParams(logout.body).get("logout_token") ?? "", jwks, {
        issuer: server.issuer,
        audience: "partner",
      });
      expect(payload).toMatchObject({ sub: person.id, sid: tokens.claims()?.sid });
      // The provider session no longer signs the person in to it silently.
      const silent = await codeRequest(partner, PARTNER_CALLBACK, { prompt: "none" });
      const answer = await browser.authorize(silent.url);
      expect(answer.searchParams.get("code")).toBeNull();
      expect(answer.searchParams.get("error")).toMatch(/^(consent|login)_required$/u);

      // The other app keeps its access, and the person stays signed in here.
      await stillWorks(desktop, desktopTokens.refresh_token ?? "");
      expect((await browser.get("/api/session")).status).toBe(200);
      expect((await appsOf(browser)).map((app) => app.name)).toEqual(["Enscape"]);
      expect(await auditOf(person.id, "app_removed")).toEqual([{ detail: "partner", country: null }]);
    });

    it("answers 404 for another person's grant, as for an unknown one, and revokes nothing", async () => {
      const owner = await signedIn();
      const tokens = await partnerOffline(owner.browser);
      const [entry] = await appsOf(owner.browser);
      const { browser: intruder, person } = await signedIn();
      const theirs = expectErrorObject(
        await intruder.request("DELETE", `/api/account/apps/${entry?.id}`),
        404,
        "not_found",
      );
      const unknown = expectErrorObject(
        await intruder.request("DELETE", `/api/account/apps/${"x".repeat(43)}`),
        404,
        "not_found",
      );
      expect({ ...theirs, guid: null, error_guid: null }).toEqual({ ...unknown, guid: null, error_guid: null });
      await stillWorks(partner, tokens.refresh_token ?? "");
      expect(await appsOf(owner.browser)).toHaveLength(1);
      expect(await auditOf(person.id, "app_removed")).toEqual([]);
    });

    it("needs the session's CSRF token", async () => {
      const { browser } = await signedIn();
      const tokens = await desktopOffline(browser);
      const [entry] = await appsOf(browser);
      expectErrorObject(
        await browser.request("DELETE", `/api/account/apps/${entry?.id}`, undefined, { "x-csrf-token": "forged" }),
        403,
        "csrf_invalid",
      );
      await stillWorks(desktop, tokens.refresh_token ?? "");
      expect(await appsOf(browser)).toHaveLength(1);
    });
  });

  describe("what ends every app's access, offline ones included", () => {
    it("a password change: a desktop app's offline refresh token, which outlives a sign-out, fails", async () => {
      const { person, browser } = await signedIn();
      let refreshToken = (await desktopOffline(browser)).refresh_token ?? "";
      // Offline: the browser's sign-out leaves it working (docs/decisions.md "Refresh tokens").
      expect((await browser.post("/api/account/logout")).status).toBe(200);
      refreshToken = await stillWorks(desktop, refreshToken);
      await browser.signIn(person.email);
      // The app signed in through this browser without offline access: its refresh token lives with the session.
      const request = await codeRequest(desktop, DESKTOP_CALLBACK, { scope: "openid" });
      const bound = await oidc.authorizationCodeGrant(desktop, await browser.authorize(request.url), request.checks);
      const changed = await browser.post("/api/account/change_password", {
        oldPassword: PASSWORD,
        password: NEW_PASSWORD,
      });
      expect(changed.status).toBe(200);
      await expectRevoked(desktop, refreshToken);
      // The browser that made the change stays signed in, and so do the apps it signed in to for its session only.
      expect((await browser.get("/api/session")).status).toBe(200);
      await stillWorks(desktop, bound.refresh_token ?? "");
      expect(await appsOf(browser)).toEqual([expect.objectContaining({ name: "Enscape", offline: false })]);
    });

    it("a password reset", async () => {
      const { person, browser } = await signedIn();
      const refreshToken = (await desktopOffline(browser)).refresh_token ?? "";
      const code = await issueCode(server.app.db, person.id, "password_reset", PASSWORD_RESET_TTL_MS);
      const stranger = new Browser(server);
      await stranger.start();
      expect((await stranger.post("/api/account/reset_password", { code, password: NEW_PASSWORD })).status).toBe(200);
      await expectRevoked(desktop, refreshToken);
    });

    /** Turns on the authenticator app: the session is then fresh with `mfa`, as removing a factor needs. */
    async function turnOnTotp(browser: Browser) {
      const started = await browser.post("/api/account/totp");
      expect(started.status).toBe(200);
      const confirmed = await browser.post("/api/account/totp/confirm", {
        code: totpCode(started.json.secret, Date.now()),
      });
      expect(confirmed.status).toBe(200);
    }

    it("turning off the authenticator app", async () => {
      const { browser } = await signedIn();
      await turnOnTotp(browser);
      let refreshToken = (await desktopOffline(browser)).refresh_token ?? "";
      refreshToken = await stillWorks(desktop, refreshToken);
      expect((await browser.request("DELETE", "/api/account/totp")).status).toBe(200);
      await expectRevoked(desktop, refreshToken);
    });

    it("removing a passkey", async () => {
      const { person, browser } = await signedIn();
      await turnOnTotp(browser);
      // A passkey as registration leaves it (the ceremony itself is passkeys.test.ts's).
      const id = randomBytes(16).toString("base64url");
      await server.app.db
        .insertInto("passkeys")
        .values({
          id,
          user_id: person.id,
          rp_id: "127.0.0.1",
          public_key: "key",
          device_type: "multiDevice",
          name: "Laptop",
          created_at: Date.now(),
          last_used_at: null,
        })
        .execute();
      const refreshToken = (await desktopOffline(browser)).refresh_token ?? "";
      expect((await browser.request("DELETE", `/api/account/passkeys/${id}`)).status).toBe(200);
      await expectRevoked(desktop, refreshToken);
    });

    it("an administrator's factor reset and disabling, from the command line's own process", async () => {
      const env = { DATABASE_URL: server.databaseUrl, SESSION_SECRET };
      for (const command of ["factors:reset", "user:disable"]) {
        const { person, browser } = await signedIn();
        const refreshToken = (await desktopOffline(browser)).refresh_token ?? "";
        expect((await runAdmin([command, "--email", person.email], env)).code, command).toBe(0);
        await expectRevoked(desktop, refreshToken);
        // Revoked, not only refused (a disabled account's tokens are refused anyway): enabling it again brings none back.
        expect(await grantsOf(person.id), command).toEqual([]);
      }
    });
  });
});
