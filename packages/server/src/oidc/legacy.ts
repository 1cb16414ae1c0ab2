import { OIDC_TTL_S, ROUTES, WEB_CLIENT_ID } from "@gatehouse/contract";
import type Provider from "oidc-provider";
import type { ResourceServer } from "oidc-provider";
import type { Config } from "../config.ts";
import { legacyAddress, type ProviderClient } from "../settings/clients.ts";
import { siteOrigins } from "../settings/sites.ts";
import { ACCESS_TOKEN_ALG } from "./keys.ts";

/**
 * The legacy flow of spec §4 (issue #10 §3; docs/decisions.md "The legacy flow"). The provider no longer issues a
 * bare `token` response, and RFC 9700 §2.1.2 retires the implicit grant, so the web app itself is the OAuth client:
 * a public client with code + PKCE whose callback is `/legacy_login/callback` on every brand host. It asks for an
 * access token whose resource (RFC 8707) is the address it returns to, and hands that token on in the fragment of
 * that address. An address may receive a token only when it is, exactly, a redirect URI of a client CLIENTS_FILE
 * marks `legacy` (RFC 9700 §2.1: no prefix or path matching, so an open redirect elsewhere on the site cannot
 * pass a token on); the token's audience is that client's id.
 */

/**
 * The web app as a client: public (it runs in the browser, RFC 9700 §2.1.1: PKCE), first-party (no consent), code
 * only (no refresh token: the token goes to the site at once), and its callback on every host of the brands file
 * with PUBLIC_URL's scheme and port, matched exactly like any redirect URI (RFC 9700 §2.1).
 */
export function webClient(config: Pick<Config, "brands" | "publicUrl">): ProviderClient {
  return {
    client_id: WEB_CLIENT_ID,
    redirect_uris: siteOrigins(config).map((origin) => `${origin}${ROUTES.LEGACY_LOGIN_CALLBACK.path}`),
    post_logout_redirect_uris: [],
    application_type: "web",
    grant_types: ["authorization_code"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
    brand: config.brands.defaultBrand,
    legacy: false,
    first_party: true,
    require_mfa: false,
  };
}

/**
 * A legacy site's redirect URI as a resource server: only the web client may ask for it, and its token is a JWT
 * (RFC 9068) whose audience is the site's client id, so no other site or API accepts it (RFC 8707 §1, ASVS
 * 10.3.1). The resource is the exact address the token will be handed to, so the provider itself refuses
 * (invalid_target) a flow for any other address, however the browser's half was started.
 */
export function legacyResourceServer(
  config: Pick<Config, "clients">,
  resource: string,
  clientId: string,
): ResourceServer | undefined {
  const audience = clientId === WEB_CLIENT_ID ? legacyAddress(config, resource)?.clientId : undefined;
  if (!audience) return undefined;
  return {
    scope: "",
    audience,
    accessTokenTTL: OIDC_TTL_S.accessToken,
    accessTokenFormat: "jwt",
    jwt: { sign: { alg: ACCESS_TOKEN_ALG } },
  };
}

/**
 * `GET /api/legacy_token` (spec §7): a token for a legacy site, minted for the signed-in person without a browser
 * round trip through the authorization endpoint. Issued as the web client's, with the same resource server as the
 * legacy flow's; a JWT is not stored, so it needs no grant.
 */
export async function mintLegacyToken(
  provider: Provider,
  config: Pick<Config, "clients">,
  accountId: string,
  address: string,
): Promise<{ token: string; expiresIn: number } | undefined> {
  const info = legacyResourceServer(config, address, WEB_CLIENT_ID);
  const client = await provider.Client.find(WEB_CLIENT_ID);
  if (!info || !client) return undefined;
  // The library's type asks for a grant id, which only stored (opaque) tokens use: a JWT is neither stored nor
  // looked up (lib/models/formats/jwt.js), so it names none.
  const token = new provider.AccessToken({
    accountId,
    client,
    gty: "legacy_token",
    scope: "",
    resourceServer: new provider.ResourceServer(address, info),
  } as ConstructorParameters<typeof provider.AccessToken>[0]);
  return { token: await token.save(), expiresIn: OIDC_TTL_S.accessToken };
}
