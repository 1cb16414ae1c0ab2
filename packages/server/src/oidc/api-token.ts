import { OIDC_API_RESOURCE, OIDC_API_SCOPE, OIDC_TTL_S, WEB_CLIENT_ID } from "@gatehouse/contract";
import type Provider from "oidc-provider";
import type { ResourceServer } from "oidc-provider";
import { ACCESS_TOKEN_ALG } from "./keys.ts";

/**
 * The brands' API as a resource server (RFC 8707): its access token is a JWT (RFC 9068, ES256) with the API's
 * audience and scope, which the API — and the licence helper — verify with the provider's JWKS alone.
 */
export function apiResourceServer(): ResourceServer {
  return {
    scope: OIDC_API_SCOPE,
    audience: OIDC_API_RESOURCE,
    accessTokenTTL: OIDC_TTL_S.accessToken,
    accessTokenFormat: "jwt",
    jwt: { sign: { alg: ACCESS_TOKEN_ALG } },
  };
}

/**
 * Issue #13: an access token for the brands' API minted for the signed-in person without a browser round trip
 * (as `mintLegacyToken` in legacy.ts), for the studio's licence helper. The provider's own flows never give the
 * web app's public client an API token (provider.ts); this one is minted by the gateway itself, for the person
 * whose gateway session asks, and travels only to their own machine's helper. A JWT is not stored, so it needs no
 * grant.
 */
export async function mintApiToken(
  provider: Provider,
  accountId: string,
): Promise<{ token: string; expiresIn: number } | undefined> {
  const client = await provider.Client.find(WEB_CLIENT_ID);
  if (!client) return undefined;
  // The library's type asks for a grant id, which only stored (opaque) tokens use (see mintLegacyToken).
  const token = new provider.AccessToken({
    accountId,
    client,
    gty: "studio_token",
    scope: OIDC_API_SCOPE,
    resourceServer: new provider.ResourceServer(OIDC_API_RESOURCE, apiResourceServer()),
  } as ConstructorParameters<typeof provider.AccessToken>[0]);
  return { token: await token.save(), expiresIn: OIDC_TTL_S.accessToken };
}
