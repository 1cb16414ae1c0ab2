import { randomUUID } from "node:crypto";
import * as oidc from "openid-client";
import { afterAll, beforeAll, expect, it } from "vitest";
import { signInAtStandIn } from "../../../scripts/idp/sign-in.ts";
import { type StandInIdp, startStandInIdp } from "../../../scripts/idp/stand-in.ts";
import { trustedDevice } from "../src/accounts/device-cookies.ts";
import { rememberBrowser } from "../src/factors/remembered-browsers.ts";
import { deviceCookieName, sessionCookieName } from "../src/http/session.ts";
import { newSessionToken } from "../src/sessions/sessions.ts";
import { signIn } from "../src/signin/attempt.ts";
import { reportsMfa } from "../src/signin/federated.ts";
import type { Amr } from "../src/signin/proofs.ts";
import { usersStore } from "../src/store/users.ts";
import { Client, describeDatabases, freshPostgres, startServer, type TestServer } from "./harness.ts";
import { standInProvidersFile } from "./idps.ts";
import {
  Browser,
  codeRequest,
  createPerson,
  discover,
  FinishError,
  type OidcServer,
  PASSWORD,
  readJson,
  SITE_SECRET,
  startOidcServer,
} from "./oidc-harness.ts";
import { freePort } from "./ports.ts";

/**
 * Issue #26 for sites and apps: ID tokens say `amr` and `acr` (aal1, aal2); a client may demand a second factor with
 * `acr_values=aal2` or `require_mfa` in the clients file, and is never answered a code for a sign-in without one.
 */
const SITE_CALLBACK = "https://site.example/cb";
const STRICT_CALLBACK = "https://strict.example/cb";
/** oidc-harness.ts's SESSION_SECRET, which keys the device cookies. */
const SECRET = "test-secret-that-is-long-enough-123456";

describeDatabases([
  ["SQLite", async () => undefined],
  ["PostgreSQL", freshPostgres],
])("second factors in OpenID Connect (%s)", (_name, database) => {
  let server: OidcServer;
  let site: oidc.Configuration;
  let strict: oidc.Configuration;

  beforeAll(async () => {
    const databaseUrl = await database();
    server = await startOidcServer(
      [
        { client_id: "site", client_secret: SITE_SECRET, redirect_uris: [SITE_CALLBACK], first_party: true },
        {
          client_id: "strict",
          client_secret: SITE_SECRET,
          redirect_uris: [STRICT_CALLBACK],
          first_party: true,
          require_mfa: true,
        },
      ],
      databaseUrl ? { databaseUrl } : {},
    );
    site = await discover(server, "site", SITE_SECRET);
    strict = await discover(server, "strict", SITE_SECRET);
  });
  afterAll(() => server.close());

  /** A browser with a gateway session opened by the sign-in core for a proof with these RFC 8176 values. */
  async function sessionWith(amr: Amr[]) {
    const person = await createPerson(server.app);
    const user = await usersStore.findById(server.app.db, person.id);
    if (!user) throw new Error("no user row");
    const opened = await signIn(
      server.app.db,
      { user, method: "password", amr },
      { token: newSessionToken(), client: { ip: "127.0.0.1", userAgent: "test" } },
      { landing: "/profile/edit" },
      { selfOrigin: server.url, legacyOrigins: [] },
    );
    if (!opened.ok || !opened.session) throw new Error("sign-in refused");
    const browser = new Browser(server);
    browser.cookies.set(sessionCookieName(new URL(server.url)), opened.session);
    await browser.start();
    return { person, browser };
  }

  /** A confirmed authenticator app, as migration 015 stores it. */
  const confirmTotp = (userId: string) =>
    server.app.db
      .insertInto("totp_factors")
      .values({ user_id: userId, secret_sealed: "sealed", confirmed_at: Date.now(), created_at: Date.now() })
      .execute();

  async function idToken(config: oidc.Configuration, callback: string, browser: Browser, parameters = {}) {
    const request = await codeRequest(config, callback, parameters);
    const answer = await browser.authorize(request.url);
    return (await oidc.authorizationCodeGrant(config, answer, request.checks)).claims();
  }

  it("advertises aal1 and aal2 as acr_values_supported", async () => {
    const discovery = await readJson(await fetch(`${server.issuer}/.well-known/openid-configuration`));
    expect(discovery.acr_values_supported).toEqual(["aal1", "aal2"]);
  });

  it("says aal1 for a password sign-in and aal2 with its amr for one with a second factor", async () => {
    const password = await sessionWith(["pwd"]);
    expect(await idToken(site, SITE_CALLBACK, password.browser)).toMatchObject({
      sub: password.person.id,
      amr: ["pwd"],
      acr: "aal1",
    });
    const twoFactors = await sessionWith(["pwd", "otp", "mfa"]);
    expect(await idToken(site, SITE_CALLBACK, twoFactors.browser)).toMatchObject({
      sub: twoFactors.person.id,
      amr: ["pwd", "otp", "mfa"],
      acr: "aal2",
    });
  });

  it("a require_mfa client: a session with mfa gets its code and aal2", async () => {
    const { browser } = await sessionWith(["pwd", "otp", "mfa"]);
    expect(await idToken(strict, STRICT_CALLBACK, browser)).toMatchObject({ acr: "aal2" });
  });

  it("a require_mfa client is not answered a code for a password session, even a remembered provider session", async () => {
    const { browser } = await sessionWith(["pwd"]);
    // The provider now remembers a sign-in without a second factor.
    expect(await idToken(site, SITE_CALLBACK, browser)).toMatchObject({ acr: "aal1" });
    const request = await codeRequest(strict, STRICT_CALLBACK);
    const landed = await browser.authorize(request.url);
    // No factor yet: the person is led to set one up, then back to the sign-in for the site.
    expect(landed.origin).toBe(server.url);
    expect(landed.pathname).toBe("/profile/edit");
    expect(landed.searchParams.get("setup_second_factor")).toBe("true");
    expect(landed.searchParams.get("return_to")).toBe("/service_login");
    expect((await browser.get("/api/service_login")).json).toMatchObject({ signInRequired: false });
  });

  it("a person with a second factor and a password session must sign in again with it", async () => {
    const { person, browser } = await sessionWith(["pwd"]);
    await confirmTotp(person.id);
    const request = await codeRequest(strict, STRICT_CALLBACK);
    await expect(browser.authorize(request.url)).rejects.toMatchObject({ status: 401, code: "not_authenticated" });
    expect((await browser.get("/api/service_login")).json).toMatchObject({ signInRequired: true });
    // A site that does not demand it still signs them in.
    expect(await idToken(site, SITE_CALLBACK, browser)).toMatchObject({ acr: "aal1" });
  });

  it("acr_values=aal2 is honoured; cancelled, the site hears insufficient_user_authentication", async () => {
    const { browser } = await sessionWith(["pwd"]);
    // The site already holds a grant and the provider a session without a second factor: neither skips it.
    expect(await idToken(site, SITE_CALLBACK, browser)).toMatchObject({ acr: "aal1" });
    const request = await codeRequest(site, SITE_CALLBACK, { acr_values: "aal2" });
    const landed = await browser.authorize(request.url);
    expect(landed.pathname).toBe("/profile/edit");
    const aborted = await browser.post("/api/service_login/abort");
    const redirect = new URL(aborted.json.redirect_to, server.url);
    const back = await browser.authorize(redirect);
    expect(back.origin + back.pathname).toBe(SITE_CALLBACK);
    expect(back.searchParams.get("error")).toBe("insufficient_user_authentication");
    expect(back.searchParams.get("code")).toBeNull();
    // A list that still accepts aal1 is met by a password sign-in.
    expect(await idToken(site, SITE_CALLBACK, browser, { acr_values: "aal2 aal1" })).toMatchObject({ acr: "aal1" });
  });

  it("prompt=none for a require_mfa client without a second factor: insufficient_user_authentication", async () => {
    const { browser } = await sessionWith(["pwd"]);
    await idToken(site, SITE_CALLBACK, browser);
    const request = await codeRequest(strict, STRICT_CALLBACK, { prompt: "none" });
    const back = await browser.authorize(request.url);
    expect(back.origin + back.pathname).toBe(STRICT_CALLBACK);
    expect(back.searchParams.get("error")).toBe("insufficient_user_authentication");
  });

  /** A browser without a session that follows an authorization request to SERVICE_LOGIN, as the screen opens. */
  async function atServiceLogin(url: URL) {
    const browser = new Browser(server);
    await browser.start();
    let next = url.href;
    for (let hops = 0; hops < 5; hops++) {
      const { location } = await browser.visit(next);
      if (!location) throw new Error(`no redirect from ${next}`);
      if (new URL(location).pathname === "/service_login") return browser;
      next = location;
    }
    throw new Error("never reached /service_login");
  }

  it("marks the sign-in made for a demanding client so a remembered browser cannot skip the second factor", async () => {
    const destinations = [];
    for (const [config, callback] of [
      [strict, STRICT_CALLBACK],
      [site, SITE_CALLBACK],
    ] as const) {
      // An account owing a password change: its attempt, and the destination it keeps, stay to be read.
      const person = await createPerson(server.app, { requirePasswordUpdate: true });
      const browser = await atServiceLogin((await codeRequest(config, callback)).url);
      const login = await browser.post("/api/account/login", {
        email: person.email,
        password: PASSWORD,
        returnTo: "/service_login",
      });
      expect(login.status).toBe(200);
      const attempt = await server.app.db
        .selectFrom("sign_in_attempts")
        .select("destination")
        .where("user_id", "=", person.id)
        .executeTakeFirstOrThrow();
      destinations.push(JSON.parse(attempt.destination));
    }
    expect(destinations[0]).toMatchObject({ returnTo: "/service_login", mfa: true });
    expect(destinations[1]).not.toHaveProperty("mfa");
  });

  it("a remembered browser skips the second factor for a site, never for a client that demands it", async () => {
    const person = await createPerson(server.app);
    await confirmTotp(person.id);
    const nexts = [];
    for (const [config, callback] of [
      [site, SITE_CALLBACK],
      [strict, STRICT_CALLBACK],
    ] as const) {
      const browser = await atServiceLogin((await codeRequest(config, callback, { prompt: "login" })).url);
      if (config === site) {
        // This browser is remembered for the account: its device cookie, from a first password sign-in.
        await browser.login(person.email, PASSWORD);
        await rememberThisBrowser(browser, person);
      } else {
        browser.cookies.set(deviceCookieName(new URL(server.url)), rememberedDevice);
      }
      const login = await browser.post("/api/account/login", {
        email: person.email,
        password: PASSWORD,
        returnTo: "/service_login",
      });
      expect(login.status).toBe(200);
      nexts.push(login.json.next);
    }
    expect(nexts[0]).toEqual({ kind: "provider", url: "/service_login" });
    expect(nexts[1]).toMatchObject({ kind: "step", url: expect.stringMatching(/^\/login\/second-factor/u) });
  });

  let rememberedDevice = "";
  /** Remembers the browser's device cookie for the account, as "Remember this browser" does. */
  async function rememberThisBrowser(browser: Browser, person: { id: string; email: string }) {
    const cookie = browser.cookies.get(deviceCookieName(new URL(server.url)));
    const user = await usersStore.findById(server.app.db, person.id);
    const deviceId = user && trustedDevice(SECRET, cookie, user.email_normalized);
    if (!cookie || !deviceId) throw new Error("no device cookie");
    rememberedDevice = cookie;
    await rememberBrowser(server.app.db, person.id, deviceId);
  }

  it("a declined sign-in without acr_values is still access_denied", async () => {
    const { browser } = await sessionWith(["pwd"]);
    const request = await codeRequest(site, SITE_CALLBACK, { prompt: "login" });
    await expect(browser.authorize(request.url)).rejects.toBeInstanceOf(FinishError);
    const aborted = await browser.post("/api/service_login/abort");
    const back = await browser.authorize(new URL(aborted.json.redirect_to, server.url));
    expect(back.searchParams.get("error")).toBe("access_denied");
  });
});

describeDatabases([["SQLite"]])("a company's identity provider reporting its own MFA (signin/federated.ts)", () => {
  it("trusts mfa, or a password with a one-time code or key; not a password or a code alone", () => {
    expect(reportsMfa(["mfa"])).toBe(true);
    expect(reportsMfa(["pwd", "otp"])).toBe(true);
    expect(reportsMfa(["pwd", "hwk"])).toBe(true);
    expect(reportsMfa(["swk", "pwd"])).toBe(true);
    expect(reportsMfa(["pwd"])).toBe(false);
    expect(reportsMfa(["otp"])).toBe(false);
    expect(reportsMfa([])).toBe(false);
  });
});

describeDatabases([["SQLite"]])("corporate sign-in through a company provider that reports amr (end to end)", () => {
  let idp: StandInIdp;
  let server: TestServer;
  let origin: string;

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    idp = await startStandInIdp({ origins: [origin] });
    server = await startServer({ port, env: { PUBLIC_URL: origin, IDPS_FILE: standInProvidersFile(idp) } });
  });
  afterAll(async () => {
    await server?.close();
    await idp?.close();
  });

  /** A just-in-time corporate account signed in with the company reporting `amr`; answers its session's amr. */
  async function sessionAmrAfter(amr: string[]): Promise<string[]> {
    const client = await new Client(server.url).start();
    const email = `${randomUUID()}@acme.example`;
    const start = await client.post("/api/account/federated/login", { email });
    const callback = await signInAtStandIn(start.json.redirect_to, {
      email,
      firstName: "Joan",
      lastName: "Clarke",
      amr,
    });
    const answer = await client.get(callback.pathname + callback.search);
    expect(answer.status).toBe(302);
    // The company gives no country: the profile step finishes the attempt, whose proofs the session keeps.
    const saved = await client.request("PUT", "/api/account/profile", {
      firstName: "Joan",
      lastName: "Clarke",
      countryCode: "GB",
    });
    expect(saved.status).toBe(200);
    const user = await server.app.db
      .selectFrom("users")
      .select("id")
      .where("email", "=", email)
      .executeTakeFirstOrThrow();
    const session = await server.app.db
      .selectFrom("sessions")
      .select("amr")
      .where("user_id", "=", user.id)
      .executeTakeFirstOrThrow();
    return (session.amr ?? "").split(" ");
  }

  it("a company sign-in with its own second factor counts as mfa; with a password alone it does not", async () => {
    expect(await sessionAmrAfter(["pwd", "otp", "mfa"])).toEqual(["fed", "mfa"]);
    expect(await sessionAmrAfter(["pwd", "hwk"])).toEqual(["fed", "mfa"]);
    expect(await sessionAmrAfter(["pwd"])).toEqual(["fed"]);
  });
});
