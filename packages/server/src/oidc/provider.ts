import { hkdfSync } from "node:crypto";
import { OIDC_API_RESOURCE, OIDC_API_SCOPE, OIDC_TTL_S, ROUTES, WEB_CLIENT_ID } from "@gatehouse/contract";
import type { FastifyBaseLogger } from "fastify";
import Provider, {
  type ClientMetadata,
  type Configuration,
  errors,
  type KoaContextWithOIDC,
  type ResourceServer,
} from "oidc-provider";
import type { Config } from "../config.ts";
import { RETRY_AFTER_S } from "../http/errors.ts";
import { OUR_CLIENT_FIELDS } from "../settings/clients.ts";
import { type Db, logFailure } from "../store/db.ts";
import { accountFinder, OIDC_CLAIMS } from "./account.ts";
import { oidcAdapter } from "./adapter.ts";
import { apiResourceServer } from "./api-token.ts";
import { ACR_VALUES } from "./assurance.ts";
import { gatewayCookieName, gatewaySessionIdOf } from "./gateway-session.ts";
import { countIssuedTokens } from "./issued-tokens.ts";
import type { PrivateJwk } from "./keys.ts";
import { legacyResourceServer, webClient } from "./legacy.ts";
import { endSessionErrorPages, logoutSource, postLogoutSuccessSource, renderError } from "./pages.ts";
import { interactionsPolicy } from "./policy.ts";

/** Where the provider lives on every host of the service (ARCHITECTURE.md: issuer PUBLIC_URL/oidc). */
export const OIDC_MOUNT = "/oidc";
/** The OpenID Connect scopes a grant may hold: declared to the provider here, granted by interaction.ts. */
export const OIDC_SCOPES = ["openid", "offline_access", "email", "profile", "trials"] as const;

/** The issuer: PUBLIC_URL's origin and the mount path, the `iss` of every token. */
export function issuerOf(config: Pick<Config, "publicUrl">): string {
  return `${config.publicUrl.origin}${OIDC_MOUNT}`;
}

/** The provider's cookie signing keys: from SESSION_SECRET through HKDF under their own label (never the secret itself). */
function cookieKeys(sessionSecret: string): string[] {
  return [Buffer.from(hkdfSync("sha256", sessionSecret, "gatehouse", "oidc cookies", 32)).toString("base64url")];
}

/**
 * PKCE is required for every authorization code, confidential clients included (RFC 9700 §2.1.1, OAuth 2.1), and
 * S256 is the only method the provider accepts: `plain` is refused (RFC 9700 §2.1.1).
 */
const pkceRequired = () => true;

/**
 * Refresh tokens: for `offline_access` (OIDC Core §11), and for desktop apps without it — then they live only as
 * long as the provider session, which lives only as long as the gateway session (docs/decisions.md).
 */
async function issueRefreshToken(
  _ctx: KoaContextWithOIDC,
  client: { grantTypeAllowed(type: string): boolean; applicationType?: string },
  code: { scopes: Set<string> },
) {
  return (
    client.grantTypeAllowed("refresh_token") &&
    (code.scopes.has("offline_access") || client.applicationType === "native")
  );
}

/**
 * The provider's outgoing requests (back-channel logout) refuse special-use addresses such as loopback (SSRF
 * protection, ASVS 1.3.6). Tests run every site on loopback, so under NODE_ENV=test only, a loopback target
 * is reached without that check; everywhere else the library's own protection stays.
 */
function loopbackFetchForTests(input: string | URL | Request, init?: RequestInit & { dispatcher?: unknown }) {
  const { hostname } = new URL(input instanceof Request ? input.url : input);
  if (init && (hostname === "127.0.0.1" || hostname === "localhost" || hostname === "[::1]")) delete init.dispatcher;
  return globalThis.fetch(input, init);
}

/** A client of the clients file marked as the vendor's own (never the web app's legacy client). */
const isFirstParty = (client: { clientId: string; first_party?: unknown }) =>
  client.first_party === true && client.clientId !== WEB_CLIENT_ID;

/** The scopes the request itself names (the authorization request, or a token request that narrows them). */
const scopesAsked = (ctx: KoaContextWithOIDC) => new Set(String(ctx.oidc.params?.scope ?? "").split(" "));

/**
 * Issue #24 §2: the brands' API is the default resource only of the vendor's own clients, and only when they ask
 * for `api`; every other client names it (`resource`) and asks for `api`, which the person consents to. A token
 * request naming several resources chooses one itself (`oneOf`, refused by the provider as ambiguous).
 */
function defaultResource(
  ctx: KoaContextWithOIDC,
  client: { clientId: string; first_party?: unknown },
  oneOf?: readonly string[],
): string | readonly string[] | undefined {
  if (oneOf) return oneOf;
  return isFirstParty(client) && scopesAsked(ctx).has(OIDC_API_SCOPE) ? OIDC_API_RESOURCE : undefined;
}

/**
 * A token for the brands' API only with the `api` scope (issue #24 §2; ASVS 10.4.x least privilege): at the token
 * endpoint the grant must hold it (granted, for a third party consented); at the authorization request, before
 * any grant, the request must ask for it. Without it the API's audience is refused (`invalid_target`, RFC 8707
 * §2), never issued with an empty scope that an API checking only `aud` would accept.
 */
function apiResourceFor(ctx: KoaContextWithOIDC): ResourceServer {
  const grant = ctx.oidc.entities.Grant;
  const held = grant
    ? grant.getResourceScope(OIDC_API_RESOURCE).split(" ").includes(OIDC_API_SCOPE)
    : scopesAsked(ctx).has(OIDC_API_SCOPE);
  if (!held) throw new errors.InvalidTarget(`a token for ${OIDC_API_RESOURCE} needs the ${OIDC_API_SCOPE} scope`);
  // RFC 9068: a JWT the brand's API verifies with the JWKS alone (ES256, oidc/keys.ts).
  return apiResourceServer();
}

/** Builds the provider over our store with the clients of CLIENTS_FILE and the signing keys of the database. */
export function buildProvider(options: {
  config: Config;
  db: Db;
  keys: PrivateJwk[];
  log: FastifyBaseLogger;
}): Provider {
  const { config, db, keys, log } = options;
  const cookie = gatewayCookieName(config);
  const configuration: Configuration = {
    adapter: oidcAdapter(db, () => gatewaySessionIdOf(Provider.ctx?.cookies.get(cookie))),
    // CLIENTS_FILE's clients, and the web app itself for the legacy flow (oidc/legacy.ts).
    clients: [...config.clients, webClient(config)].map((client): ClientMetadata => ({ ...client })),
    // Cross-origin calls to the token and userinfo endpoints: only a public client's own redirect origins (a
    // browser app), never a confidential client's, whose secret must not live in a browser (ASVS 3.4.2).
    clientBasedCORS: (ctx, origin, client) =>
      origin !== "null" &&
      (ctx.oidc.route === "userinfo" || client.clientAuthMethod === "none") &&
      (client.redirectUris ?? []).some((uri) => URL.parse(uri)?.origin === origin),
    extraClientMetadata: { properties: [...OUR_CLIENT_FIELDS] },
    findAccount: accountFinder(db),
    // Issue #26: aal1 (one factor) and aal2 (two), advertised as acr_values_supported (oidc/assurance.ts).
    acrValues: [...ACR_VALUES],
    claims: {
      // The library's own standalone claims, given when a site asks for them (the `claims` parameter); `acr` is in
      // every ID token (OIDC_CLAIMS.openid).
      auth_time: null,
      iss: null,
      sid: null,
      ...Object.fromEntries(Object.entries(OIDC_CLAIMS).map(([scope, claims]) => [scope, [...claims]])),
    },
    // OpenID scopes only: the API's scope belongs to its resource server (getResourceServerInfo).
    scopes: [...OIDC_SCOPES],
    jwks: { keys },
    cookies: {
      keys: cookieKeys(config.sessionSecret),
      long: { signed: true, httpOnly: true, sameSite: "lax" },
      // Our interaction API under /api must receive the interaction cookie (the notes: Logto does the same).
      short: { signed: true, httpOnly: true, sameSite: "lax", path: "/" },
    },
    responseTypes: ["code", "id_token", "id_token token", "none"],
    pkce: { required: pkceRequired },
    issueRefreshToken,
    interactions: {
      policy: interactionsPolicy(db, config),
      // Our screen (spec §2 SERVICE_LOGIN) on the host the person is on; it reads the interaction through /api.
      url: () => ROUTES.SERVICE_LOGIN.path,
    },
    features: {
      devInteractions: { enabled: false },
      // Off: no client of ours binds tokens to a key, and several nodes would have to share a nonce secret.
      dPoP: { enabled: false },
      introspection: {
        enabled: true,
        // A client learns only about its own tokens (RFC 7662 §2.1, §4; ASVS 10.4.x): another client's token is
        // answered `{ active: false }`, as an unknown one.
        allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId,
      },
      revocation: { enabled: true },
      userinfo: { enabled: true },
      backchannelLogout: { enabled: true },
      rpInitiatedLogout: { enabled: true, logoutSource, postLogoutSuccessSource: postLogoutSuccessSource(config) },
      resourceIndicators: {
        enabled: true,
        defaultResource,
        // Without `resource` at the token endpoint, an `openid` request gets a token for userinfo (OIDC Core);
        // naming the API (or asking no `openid`) gets a JWT for it (docs/decisions.md "Access tokens").
        useGrantedResource: () => false,
        getResourceServerInfo: (ctx, resource, client) => {
          // Least privilege (ASVS 10.4.x): the web app's public client never holds a token for the brands' API.
          if (resource !== OIDC_API_RESOURCE || client.clientId === WEB_CLIENT_ID) {
            // A legacy site's token, for the web client's legacy flow only (oidc/legacy.ts).
            const legacy = legacyResourceServer(config, resource, client.clientId);
            if (!legacy) throw new errors.InvalidTarget();
            return legacy;
          }
          return apiResourceFor(ctx);
        },
      },
    },
    ttl: {
      // A resource server's own lifetime when it has one (the licence token's five minutes), else the usual hour.
      AccessToken: (_ctx, token) => token.resourceServer?.accessTokenTTL ?? OIDC_TTL_S.accessToken,
      AuthorizationCode: OIDC_TTL_S.authorizationCode,
      IdToken: OIDC_TTL_S.idToken,
      Interaction: OIDC_TTL_S.interaction,
      RefreshToken: OIDC_TTL_S.refreshToken,
      Session: OIDC_TTL_S.session,
      Grant: OIDC_TTL_S.grant,
    },
    renderError: renderError(log),
    ...(config.nodeEnv === "test" ? { fetch: loopbackFetchForTests } : {}),
  };
  const provider = new Provider(issuerOf(config), configuration);
  // Behind TLS offload the provider must believe X-Forwarded-Proto; oidc/mount.ts strips those headers unless
  // TRUST_PROXY trusts the connection's peer.
  provider.proxy = config.trustProxy !== false;
  provider.use(endSessionErrorPages(log));
  provider.on("server_error", (ctx: KoaContextWithOIDC, error: Error) => {
    // The database away (a restart, a failover) is worth a retry, not a fault: a JSON answer (the token endpoint,
    // userinfo) says so as the API does, 503 with Retry-After and OAuth's `temporarily_unavailable` (issue #14).
    // Pages were already sent to our error page by renderError.
    const away = logFailure(log, error, "oidc request failed", {
      fields: { route: ctx.oidc?.route },
      unavailable: "oidc request deferred: database unavailable",
    });
    if (away && ctx.status >= 500) {
      ctx.status = 503;
      ctx.set("retry-after", String(RETRY_AFTER_S));
      ctx.body = { error: "temporarily_unavailable", error_description: "try again in a moment" };
    }
  });
  countIssuedTokens(provider, db);
  return provider;
}
