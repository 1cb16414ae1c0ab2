import { createHash } from "node:crypto";
import { emailRule, FEDERATION_FLOW_TTL_MS, firstNameRule, lastNameRule } from "@gatehouse/contract";
import * as client from "openid-client";
import type { IdentityProvider } from "../settings/idps.ts";
import type { Db } from "../store/db.ts";
import { federationStore } from "../store/federation.ts";
import type { FederationFlowRow } from "../store/schema.ts";

/** A provider's answer to wait at most for (discovery, token, profile): a person is waiting on the page. */
const PROVIDER_TIMEOUT_S = 10;

const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");

/** The hash a browser's flows and pending sign-in are bound to: its session cookie, never stored as it is. */
export const browserKey = sha256;

/**
 * The relying party's view of each provider (openid-client 6): discovered once and kept, or built from the
 * endpoints IDPS_FILE gives (Facebook's OAuth 2.0, Trimble without a discovery document). A failed discovery is
 * forgotten, so the next sign-in tries again instead of the node staying broken until a restart.
 */
const configurations = new WeakMap<IdentityProvider, Promise<client.Configuration>>();

export function configurationOf(idp: IdentityProvider): Promise<client.Configuration> {
  let configuration = configurations.get(idp);
  if (!configuration) {
    configuration = build(idp);
    configurations.set(idp, configuration);
    configuration.catch(() => configurations.delete(idp));
  }
  return configuration;
}

async function build(idp: IdentityProvider): Promise<client.Configuration> {
  const execute = idp.insecure ? [client.allowInsecureRequests] : [];
  if (!idp.endpoints) {
    return client.discovery(new URL(idp.issuer), idp.clientId, idp.clientSecret, undefined, {
      execute,
      timeout: PROVIDER_TIMEOUT_S,
      algorithm: idp.protocol,
    });
  }
  const configuration = new client.Configuration(
    { issuer: idp.issuer, ...idp.endpoints },
    idp.clientId,
    idp.clientSecret,
  );
  for (const apply of execute) apply(configuration);
  configuration.timeout = PROVIDER_TIMEOUT_S;
  return configuration;
}

export interface FlowStart {
  idp: IdentityProvider;
  /** The browser's session cookie: the answer is accepted only in the browser that asked. */
  browser: string;
  /** Our callback on the origin of the host the person is on (from the brands file, never the Host header). */
  redirectUri: string;
  returnTo: string | undefined;
  loginHint?: string | undefined;
  prompt?: "login" | "select_account" | undefined;
}

/**
 * Starts a round trip to a provider (RFC 9700 §2.1.1, §4.7): a random state, a nonce for ID tokens and a PKCE S256
 * verifier, kept server-side bound to the browser (ASVS 10.1.2, 10.2.1); answers the authorization URL.
 */
export async function startFlow(db: Db, start: FlowStart, now = Date.now()): Promise<URL> {
  const { idp } = start;
  const configuration = await configurationOf(idp);
  const state = client.randomState();
  const verifier = client.randomPKCECodeVerifier();
  const nonce = idp.protocol === "oidc" ? client.randomNonce() : null;
  const row: FederationFlowRow = {
    id: sha256(state),
    browser: browserKey(start.browser),
    provider: idp.id,
    nonce,
    code_verifier: verifier,
    redirect_uri: start.redirectUri,
    return_to: start.returnTo ?? null,
    expires_at: now + FEDERATION_FLOW_TTL_MS,
  };
  await federationStore.insertFlow(db, row);
  const parameters: Record<string, string> = {
    redirect_uri: start.redirectUri,
    scope: idp.scope,
    state,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
  };
  if (nonce) parameters.nonce = nonce;
  if (start.loginHint) parameters.login_hint = start.loginHint;
  if (start.prompt) parameters.prompt = start.prompt;
  return client.buildAuthorizationUrl(configuration, parameters);
}

/** What a provider says of the person, in our words; the subject is the key (ASVS 6.8.1), the rest is profile. */
export interface ProviderProfile {
  subject: string;
  email: string | undefined;
  /** The provider vouches for the address (`email_verified`); Facebook never does (notes/federation.md). */
  emailVerified: boolean;
  /** The provider says outright that it has not checked the address (`email_verified: false`). */
  emailUnverified: boolean;
  firstName: string;
  lastName: string;
  fullName: string;
  /**
   * How the person signed in at the provider (RFC 8176 `amr` of its ID token only, never of userinfo: issue #26, a
   * company's MFA is trusted from the signed token). Empty when it says nothing.
   */
  amr: readonly string[];
}

export type FlowOutcome =
  | { ok: true; profile: ProviderProfile; returnTo: string | undefined }
  /** `state`: no flow of this browser and provider (tampered, replayed, expired, another browser's). */
  | { ok: false; reason: "state" | "refused" | "failed"; detail: string }
  /** The person chose Cancel at the provider (`access_denied`): back to where the sign-in started. */
  | { ok: false; reason: "cancelled"; detail: string; returnTo: string | undefined };

/**
 * Finishes a round trip: the flow is taken once for this browser and provider, then openid-client checks the answer
 * (state, RFC 9207 `iss` where the provider sends it, the code exchanged with the PKCE verifier, the ID token's
 * issuer, audience, signature and nonce: ASVS 10.2.2, 10.5.1) and the profile is read.
 */
export async function finishFlow(
  db: Db,
  idp: IdentityProvider,
  browser: string,
  query: Record<string, unknown>,
  now = Date.now(),
): Promise<FlowOutcome> {
  const state = typeof query.state === "string" ? query.state : "";
  const flow = state
    ? await federationStore.consumeFlow(db, sha256(state), { browser: browserKey(browser), provider: idp.id }, now)
    : undefined;
  if (!flow) return { ok: false, reason: "state", detail: "no flow for this state, browser and provider" };
  if (query.error === "access_denied") {
    return { ok: false, reason: "cancelled", detail: "the person cancelled", returnTo: flow.return_to ?? undefined };
  }
  if (typeof query.error === "string") return { ok: false, reason: "refused", detail: `provider said ${query.error}` };
  try {
    const configuration = await configurationOf(idp);
    const answer = new URL(flow.redirect_uri);
    for (const [name, value] of Object.entries(query))
      if (typeof value === "string") answer.searchParams.set(name, value);
    const tokens = await client.authorizationCodeGrant(configuration, answer, {
      pkceCodeVerifier: flow.code_verifier,
      expectedState: state,
      ...(flow.nonce ? { expectedNonce: flow.nonce, idTokenExpected: true } : {}),
    });
    const profile = await readProfile(configuration, idp, tokens);
    if (!profile) return { ok: false, reason: "failed", detail: "the provider named nobody" };
    return { ok: true, profile, returnTo: flow.return_to ?? undefined };
  } catch (error) {
    return {
      ok: false,
      reason: "failed",
      detail: error instanceof Error ? `${error.name}: ${error.message}` : "failed",
    };
  }
}

type Tokens = Awaited<ReturnType<typeof client.authorizationCodeGrant>>;

async function readProfile(
  configuration: client.Configuration,
  idp: IdentityProvider,
  tokens: Tokens,
): Promise<ProviderProfile | undefined> {
  if (idp.protocol === "oauth2") {
    // Facebook: the Graph API's /me with the fields asked in userinfo_endpoint; its e-mail is never vouched for.
    const url = new URL(idp.endpoints?.userinfo_endpoint ?? "");
    const response = await client.fetchProtectedResource(configuration, tokens.access_token, url, "GET");
    if (!response.ok) throw new Error(`profile call answered ${response.status}`);
    const me = (await response.json()) as Record<string, unknown>;
    return profileOf(
      {
        sub: me.id,
        email: me.email,
        email_verified: false,
        given_name: me.first_name,
        family_name: me.last_name,
        name: me.name,
      },
      [],
    );
  }
  const claims = tokens.claims();
  if (!claims) return undefined;
  let merged: Record<string, unknown> = claims;
  // Some providers (Trimble) put the profile in userinfo only; its `sub` must be the ID token's (OIDC Core 5.3.2).
  if (claims.email === undefined && configuration.serverMetadata().userinfo_endpoint) {
    merged = { ...(await client.fetchUserInfo(configuration, tokens.access_token, claims.sub)), ...claims };
  }
  return profileOf(merged, claims.amr);
}

const text = (value: unknown, max: number) => (typeof value === "string" ? value.trim().slice(0, max) : "");

/** The ID token's `amr`, bounded (RFC 8176 values are short words; a provider's list is a handful). */
const amrOf = (value: unknown): string[] =>
  Array.isArray(value)
    ? value
        .filter((v): v is string => typeof v === "string")
        .slice(0, 16)
        .map((v) => v.slice(0, 32))
    : [];

function profileOf(claims: Record<string, unknown>, amr: unknown): ProviderProfile | undefined {
  const subject = typeof claims.sub === "number" ? String(claims.sub) : text(claims.sub, 255);
  if (!subject) return undefined;
  // An address that is not one by our rules (spec §5) is no address: the account could not be written to.
  const address = emailRule.safeParse(text(claims.email, 254));
  const email = address.success ? address.data : undefined;
  // Names beyond our limits (spec §9) are not kept: the form or the profile asks for them.
  const firstName = firstNameRule.safeParse(text(claims.given_name, 255)).success ? text(claims.given_name, 255) : "";
  const lastName = lastNameRule.safeParse(text(claims.family_name, 255)).success ? text(claims.family_name, 255) : "";
  return {
    subject,
    email,
    emailVerified: claims.email_verified === true || claims.email_verified === "true",
    emailUnverified: claims.email_verified === false || claims.email_verified === "false",
    firstName,
    lastName,
    fullName: text(claims.name, 255) || `${firstName} ${lastName}`.trim(),
    amr: amrOf(amr),
  };
}
