import { ACTIVATION_TTL_MS } from "@gatehouse/contract";
import * as oidc from "openid-client";
import { describe, expect, it } from "vitest";
import { createUser } from "../src/accounts/users.ts";
import { issueCode } from "../src/codes/codes.ts";
import { expectErrorObject, freshPostgres, useInstances } from "./harness.ts";
import {
  Browser,
  codeRequest,
  createPerson,
  discover,
  type OidcServer,
  SITE_SECRET,
  startOidcServer,
} from "./oidc-harness.ts";
import { freePort } from "./ports.ts";

/**
 * Issue #14: the same races as races.test.ts, through the HTTP API of two nodes (two apps on one PostgreSQL
 * database, the second serving the first's PUBLIC_URL as a load balancer's nodes do). A mailed code and the
 * provider's codes and refresh tokens, presented to both nodes at the same moment, work once.
 */
const ROUNDS = 3;
const ATTEMPTS = 8;
const SITE_CALLBACK = "https://site.example/cb";

describe("two nodes on one PostgreSQL, one code sent to both at once", () => {
  const clients = [
    { client_id: "site", client_secret: SITE_SECRET, redirect_uris: [SITE_CALLBACK], first_party: true },
    {
      client_id: "desktop",
      application_type: "native",
      redirect_uris: ["http://127.0.0.1/callback"],
      first_party: true,
    },
  ];
  // The second node serves the first's PUBLIC_URL, as a load balancer's nodes do.
  const { instances: nodes, browser } = useInstances<OidcServer>(freshPostgres, (databaseUrl, [first]) =>
    startOidcServer(clients, {
      databaseUrl,
      env: { TRUST_PROXY: "true", ...(first ? { PUBLIC_URL: first.url } : {}) },
    }),
  );

  const first = () => nodes[0] as OidcServer;

  it("an activation link: one sign-in, every other attempt told the link was used", async () => {
    // Guard: the conditional update of codesStore.markUsed (races.test.ts shows it failing without it).
    for (let round = 0; round < ROUNDS; round++) {
      const user = await createUser(first().app.db, {
        email: `${crypto.randomUUID()}@example.com`,
        password: "Granite-Kettle-58",
        firstName: "Race",
        lastName: "Condition",
        countryCode: "DE",
        status: "pending",
      });
      const code = await issueCode(first().app.db, user.id, "activation", ACTIVATION_TTL_MS);
      const browsers = await Promise.all(Array.from({ length: ATTEMPTS }, (_, i) => browser(i)));
      const answers = await Promise.all(
        browsers.map((b) => b.post("/api/account/activation/login", { activationCode: code })),
      );
      expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
      // The link did its work: every other attempt is told the account is already active (issue #25).
      for (const refused of answers.filter((a) => a.status !== 200))
        expectErrorObject(refused, 410, "account_already_active");
      const sessions = await first()
        .app.db.selectFrom("sessions")
        .select("id")
        .where("user_id", "=", user.id)
        .execute();
      expect(sessions).toHaveLength(1);
    }
  });

  /** Posts a token request to node `i % 2`, as a relying party retrying on two connections would. */
  const tokenRequest = (i: number, body: Record<string, string>, secret?: string) =>
    fetch(`${(nodes[i % 2] as OidcServer).url}/oidc/token`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        ...(secret ? { authorization: `Basic ${Buffer.from(`site:${secret}`).toString("base64")}` } : {}),
      },
      body: new URLSearchParams(body),
    }).then(async (response) => ({
      status: response.status,
      body: (await response.json()) as Record<string, unknown>,
    }));

  /** Whether an access token still opens userinfo (on the first node). */
  const userinfo = async (token: unknown) =>
    (await fetch(`${first().issuer}/me`, { headers: { authorization: `Bearer ${String(token)}` } })).status;

  it("an authorization code: one token answer, and the replay ends the grant", async () => {
    // Guard: the adapter's consume (oidc/adapter.ts) is one conditional update, and the request that loses it is
    // refused before any token is issued. Checked: with the unconditional update it replaced, 7 of the 8 requests
    // got tokens (the provider reads `consumed`, then writes it, and most requests read it before any wrote).
    const site = await discover(first(), "site", SITE_SECRET);
    for (let round = 0; round < ROUNDS; round++) {
      const person = await createPerson(first().app);
      const signedIn = new Browser(first());
      await signedIn.signIn(person.email);
      const request = await codeRequest(site, SITE_CALLBACK);
      const code = (await signedIn.authorize(request.url)).searchParams.get("code") ?? "";
      const redemption = {
        grant_type: "authorization_code",
        code,
        redirect_uri: SITE_CALLBACK,
        code_verifier: request.checks.pkceCodeVerifier,
      };
      const answers = await Promise.all(
        Array.from({ length: ATTEMPTS }, (_, i) => tokenRequest(i, redemption, SITE_SECRET)),
      );
      const granted = answers.filter((a) => a.status === 200);
      expect(granted).toHaveLength(1);
      for (const refused of answers.filter((a) => a.status !== 200)) {
        expect(refused).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
      }
      // RFC 6749 §4.1.2: a code used twice revokes what it gave, whether the second use came later or at once.
      expect(await userinfo(granted[0]?.body.access_token)).toBe(401);
    }
  });

  it("a desktop app's rotating refresh token: one new token, and the replay ends the grant", async () => {
    // Guard: as for codes; a rotating refresh token is consumed at its use (RFC 9700 §4.14.2). Checked: with the
    // unconditional update, 3 of the 8 requests got new refresh tokens, each a live branch of the grant.
    const desktop = await discover(first(), "desktop");
    const redirect = `http://127.0.0.1:${await freePort()}/callback`;
    for (let round = 0; round < ROUNDS; round++) {
      const person = await createPerson(first().app);
      const signedIn = new Browser(first());
      await signedIn.signIn(person.email);
      const request = await codeRequest(desktop, redirect);
      const tokens = await oidc.authorizationCodeGrant(desktop, await signedIn.authorize(request.url), request.checks);
      expect(tokens.refresh_token).toBeTruthy();
      const refresh = { grant_type: "refresh_token", refresh_token: tokens.refresh_token ?? "", client_id: "desktop" };
      const answers = await Promise.all(Array.from({ length: ATTEMPTS }, (_, i) => tokenRequest(i, refresh)));
      const granted = answers.filter((a) => a.status === 200);
      expect(granted).toHaveLength(1);
      for (const refused of answers.filter((a) => a.status !== 200)) {
        expect(refused).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
      }
      const next = { ...refresh, refresh_token: String(granted[0]?.body.refresh_token) };
      expect(await tokenRequest(0, next)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    }
  });
});
