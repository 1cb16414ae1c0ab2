import type { IncomingMessage, ServerResponse } from "node:http";
import {
  BRANDS,
  type BrandId,
  CONSENT_SCOPES,
  type ConsentScope,
  isBrandId,
  OIDC_API_RESOURCE,
  OIDC_API_SCOPE,
  ROUTES,
  WEB_CLIENT_ID,
} from "@gatehouse/contract";
import type Provider from "oidc-provider";
import { audit } from "../audit/audit.ts";
import { factorsOf, hasSecondFactor } from "../factors/factors.ts";
import type { ClientMeta } from "../sessions/sessions.ts";
import type { Destination } from "../signin/next.ts";
import type { Db } from "../store/db.ts";
import { usersStore } from "../store/users.ts";
import { acrAsked, acrOf, mfaDemanded, secondFactorSetupUrl } from "./assurance.ts";
import { type GatewaySession, readGatewaySessionForProvider } from "./gateway-session.ts";
import { OIDC_MOUNT, OIDC_SCOPES } from "./provider.ts";

const SECOND_MS = 1000;

type Interaction = Awaited<ReturnType<Provider["interactionDetails"]>>;

/** Why a sign-in cannot be finished yet; the route answers each with its error code. */
export type FinishRefusal = "gone" | "sign_in_required" | "consent_required";

export class InteractionRefusal extends Error {
  readonly refusal: FinishRefusal;
  constructor(refusal: FinishRefusal) {
    super(refusal);
    this.refusal = refusal;
  }
}

/** The raw request and answer, which the provider reads its interaction cookie from. */
export interface RawExchange {
  req: IncomingMessage;
  res: ServerResponse;
  /** The gateway session cookie's token, if any. */
  gatewayToken: string | undefined;
  /** The brand of the host the person is on (http/client.ts `brandOf`). */
  hostBrand: BrandId;
  /** Who asks, from where (http/session.ts `clientMeta`): the audit trail's `app_granted` records it. */
  client: Pick<ClientMeta, "ip" | "userAgent" | "country">;
}

/** The interaction behind the browser's cookie; a lost or expired one is "gone". */
async function interactionOf(provider: Provider, exchange: RawExchange): Promise<Interaction> {
  try {
    return await provider.interactionDetails(exchange.req, exchange.res);
  } catch {
    throw new InteractionRefusal("gone");
  }
}

/**
 * Whether the gateway session satisfies what the site asked (OIDC Core §3.1.2.1): `prompt=login` wants a sign-in
 * made for this request, `max_age` one no older than that many seconds — or made for this request. "For this
 * request" is after the provider created the interaction, counted in whole seconds as auth_time is.
 */
export function sessionSatisfies(interaction: Interaction, gateway: GatewaySession, now = Date.now()): boolean {
  const forThisRequest = Math.floor(gateway.signedInAt / SECOND_MS) > interaction.iat;
  const prompts = String(interaction.params.prompt ?? "").split(" ");
  if (prompts.includes("login") && !forThisRequest) return false;
  const maxAge = Number(interaction.params.max_age);
  const tooOld = interaction.params.max_age !== undefined && now - gateway.signedInAt > maxAge * SECOND_MS;
  return !tooOld || forThisRequest;
}

/**
 * A login prompt needs a sign-in as the site asked; a later prompt of the same request (consent) only needs the
 * gateway session to still be the person's the provider signed in.
 */
function signedInAsAsked(interaction: Interaction, gateway: GatewaySession): boolean {
  if (interaction.prompt.name === "login") return sessionSatisfies(interaction, gateway);
  return interaction.session?.accountId === gateway.userId;
}

/** The scopes the site asks for, split by word. */
const requestedScopes = (interaction: Interaction) => new Set(String(interaction.params.scope ?? "").split(" "));

/**
 * What the person is asked to agree to: nothing for the vendor's own clients; else what the site asks that this
 * person has not granted it before — `openid` alone included, since it tells the site who they are (issue #24 §2).
 */
async function consentAsked(
  provider: Provider,
  interaction: Interaction,
  firstParty: boolean,
): Promise<ConsentScope[]> {
  if (firstParty) return [];
  const granted = interaction.grantId ? await provider.Grant.find(interaction.grantId) : undefined;
  const already = new Set([
    ...String(granted?.getOIDCScope() ?? "").split(" "),
    ...String(granted?.getResourceScopeEncountered(OIDC_API_RESOURCE) ?? "").split(" "),
  ]);
  const requested = requestedScopes(interaction);
  return CONSENT_SCOPES.filter((scope) => requested.has(scope) && !already.has(scope));
}

/** The account a gateway session belongs to, as the consent screen names it (issue #24 §2: which account is shared). */
async function accountShown(db: Db, gateway: GatewaySession | undefined) {
  const user = gateway ? await usersStore.findById(db, gateway.userId) : undefined;
  if (!user) return {};
  return { account: { name: `${user.first_name} ${user.last_name}`.trim(), email: user.email } };
}

/**
 * The site's authorization request as it reached the provider (its stored parameters), to start it over after the
 * person signs out to use another account: this interaction belongs to the provider session that sign-out ends.
 */
function restartUrlOf(interaction: Interaction): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(interaction.params)) {
    for (const item of [value].flat()) if (typeof item === "string") query.append(name, item);
  }
  return `${OIDC_MOUNT}/auth?${query}`;
}

/** SERVICE_LOGIN's view of the sign-in (api.serviceLogin). */
export async function describeInteraction(provider: Provider, db: Db, exchange: RawExchange) {
  const interaction = await interactionOf(provider, exchange);
  const client = await provider.Client.find(String(interaction.params.client_id));
  if (!client) throw new InteractionRefusal("gone");
  // The web app's own client (the legacy flow) signs in on whichever brand host the person is on.
  const brand =
    client.clientId === WEB_CLIENT_ID ? exchange.hostBrand : isBrandId(client.brand) ? client.brand : "default";
  const gateway = await readGatewaySessionForProvider(db, exchange.gatewayToken);
  const loginHint = interaction.params.login_hint;
  return {
    client: {
      id: client.clientId,
      name: client.clientName ?? BRANDS[brand].name,
      brand,
      native: client.applicationType === "native",
    },
    ...(typeof loginHint === "string" && loginHint ? { loginHint } : {}),
    signInRequired:
      gateway === undefined ||
      !signedInAsAsked(interaction, gateway) ||
      (await secondFactorOwed(db, interaction, client, gateway)) === "sign_in",
    consent: await consentAsked(provider, interaction, client.first_party === true),
    ...(await accountShown(db, gateway)),
    restartUrl: restartUrlOf(interaction),
  };
}

/**
 * The grant the site receives: what it asked for — its OpenID scopes and claims, and the API's scope when it
 * names the API — once the person may give it (the vendor's own client, or they agreed). Saved before the
 * result, as the provider expects (the notes: Logto's auto-consent does the same for its first-party apps).
 */
async function grantFor(provider: Provider, interaction: Interaction, accountId: string): Promise<string> {
  const clientId = String(interaction.params.client_id);
  const existing = interaction.grantId ? await provider.Grant.find(interaction.grantId) : undefined;
  const grant = existing && existing.accountId === accountId ? existing : new provider.Grant({ accountId, clientId });
  const requested = requestedScopes(interaction);
  grant.addOIDCScope(OIDC_SCOPES.filter((scope) => requested.has(scope)).join(" "));
  const details = interaction.prompt.details as { missingOIDCClaims?: string[] };
  if (details.missingOIDCClaims) grant.addOIDCClaims(details.missingOIDCClaims);
  if (requested.has(OIDC_API_SCOPE) && [interaction.params.resource].flat().includes(OIDC_API_RESOURCE)) {
    grant.addResourceScope(OIDC_API_RESOURCE, OIDC_API_SCOPE);
  }
  return grant.save();
}

/**
 * Finishes the sign-in with the gateway session (issue #10 §2): refused without a usable one (none, one the site
 * does not accept, one that owes a step), and for a client that is not the vendor's own until the person agreed.
 * Answers the provider's address to continue at, which the screen sends the browser to.
 */
export async function finishInteraction(
  provider: Provider,
  db: Db,
  exchange: RawExchange,
  agreed: boolean,
): Promise<string> {
  const interaction = await interactionOf(provider, exchange);
  const client = await provider.Client.find(String(interaction.params.client_id));
  if (!client) throw new InteractionRefusal("gone");
  const gateway = await readGatewaySessionForProvider(db, exchange.gatewayToken);
  // A person who owes a password change or their profile has no session yet (issue #24): they sign in first.
  if (!gateway || !signedInAsAsked(interaction, gateway)) throw new InteractionRefusal("sign_in_required");
  const owed = await secondFactorOwed(db, interaction, client, gateway);
  if (owed === "sign_in") throw new InteractionRefusal("sign_in_required");
  // The interaction stays: the security section sends the person back to SERVICE_LOGIN once a factor is confirmed.
  if (owed === "set_up") return secondFactorSetupUrl();
  const asked = await consentAsked(provider, interaction, client.first_party === true);
  if (asked.length > 0 && !agreed) throw new InteractionRefusal("consent_required");
  const grantId = await grantFor(provider, interaction, gateway.userId);
  // Issue #27, the person's activity: they gave a site access on the consent screen (a new grant, or more scopes).
  // The vendor's own clients are granted without asking: their sign-in is the event (docs/decisions.md).
  if (asked.length > 0) {
    const { ip, userAgent, country } = exchange.client;
    await audit(db, "app_granted", { userId: gateway.userId, ip, userAgent, country, detail: client.clientId });
  }
  return provider.interactionResult(
    exchange.req,
    exchange.res,
    {
      login: {
        accountId: gateway.userId,
        ts: Math.floor(gateway.signedInAt / SECOND_MS),
        amr: gateway.amr,
        acr: acrOf(gateway.amr),
        remember: true,
      },
      consent: { grantId },
    },
    { mergeWithLastSubmission: false },
  );
}

/**
 * The person declined: the site receives `access_denied` (RFC 6749 §4.1.2.1) — or, when it asked `acr_values` that
 * the gateway session does not meet (no second factor), `insufficient_user_authentication` (RFC 9470 §3): the
 * level it asked for could not be reached.
 */
export async function abortInteraction(provider: Provider, db: Db, exchange: RawExchange): Promise<string> {
  const interaction = await interactionOf(provider, exchange);
  const client = await provider.Client.find(String(interaction.params.client_id));
  const gateway = await readGatewaySessionForProvider(db, exchange.gatewayToken);
  const unmet =
    acrAsked(interaction.params) &&
    mfaDemanded({ params: interaction.params, client }) &&
    !gateway?.amr.includes("mfa");
  const result = unmet
    ? { error: "insufficient_user_authentication", error_description: "a second factor was asked and not given" }
    : { error: "access_denied", error_description: "the person declined the sign-in" };
  return provider.interactionResult(exchange.req, exchange.res, result, { mergeWithLastSubmission: false });
}

/**
 * Issue #26: what a sign-in that must include a second factor (the client's `require_mfa`, or `acr_values=aal2`)
 * still lacks. A session with `mfa` lacks nothing; a person with a factor signs in again with it ("sign_in"); a
 * person without one sets one up first ("set_up"), in the security section, which refreshes the session with `mfa`.
 */
async function secondFactorOwed(
  db: Db,
  interaction: Interaction,
  client: object | undefined,
  gateway: GatewaySession,
): Promise<"sign_in" | "set_up" | undefined> {
  if (!mfaDemanded({ params: interaction.params, client }) || gateway.amr.includes("mfa")) return undefined;
  return hasSecondFactor(await factorsOf(db, gateway.userId)) ? "sign_in" : "set_up";
}

/**
 * Whether the browser's pending authorization (its interaction cookie) demands a second factor: the sign-in core
 * asks it before letting a remembered browser skip the second factor for a sign-in made for SERVICE_LOGIN.
 */
export async function interactionDemandsMfa(provider: Provider, exchange: Pick<RawExchange, "req" | "res">) {
  try {
    const interaction = await provider.interactionDetails(exchange.req, exchange.res);
    const client = await provider.Client.find(String(interaction.params.client_id));
    return mfaDemanded({ params: interaction.params, client });
  } catch {
    return false;
  }
}

/**
 * A sign-in's destination, marked `mfa` when it goes back to SERVICE_LOGIN for an authorization that demands a second
 * factor (issue #26): the sign-in core then asks for the factor even in a remembered browser.
 */
export async function withMfaDemand(
  provider: Provider,
  exchange: Pick<RawExchange, "req" | "res">,
  destination: Destination,
): Promise<Destination> {
  const returnTo = destination.returnTo ? URL.parse(destination.returnTo, "http://self.invalid") : null;
  if (returnTo?.pathname !== ROUTES.SERVICE_LOGIN.path) return destination;
  return (await interactionDemandsMfa(provider, exchange)) ? { ...destination, mfa: true } : destination;
}
