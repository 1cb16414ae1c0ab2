import {
  LICENCE_RESOURCE,
  LICENCE_SCOPE,
  LICENCE_TOKEN_TTL_S,
  OIDC_API_RESOURCE,
  OIDC_API_SCOPE,
  OIDC_TTL_S,
  WEB_CLIENT_ID,
} from "@gatehouse/contract";
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
 * Issue #13: the licence helper's resource server. Its token activates a licence and nothing else: its own audience
 * and scope, which the brands' API refuses, and five minutes, since it passes through the address bar and the
 * person's loopback port.
 */
export function licenceResourceServer(): ResourceServer {
  return {
    scope: LICENCE_SCOPE,
    audience: LICENCE_RESOURCE,
    accessTokenTTL: LICENCE_TOKEN_TTL_S,
    accessTokenFormat: "jwt",
    jwt: { sign: { alg: ACCESS_TOKEN_ALG } },
  };
}

/**
 * Issue #13: a licence-activation token minted for the signed-in person without a browser round trip (as
 * `mintLegacyToken` in legacy.ts), for the studio's licence helper, which verifies it with the provider's JWKS. It is
 * minted by the gateway itself, for the person whose gateway session asks, and is no token for the brands' API. A
 * JWT is not stored, so it needs no grant.
 */
export async function mintLicenceToken(
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
    scope: LICENCE_SCOPE,
    resourceServer: new provider.ResourceServer(LICENCE_RESOURCE, licenceResourceServer()),
  } as ConstructorParameters<typeof provider.AccessToken>[0]);
  return { token: await token.save(), expiresIn: LICENCE_TOKEN_TTL_S };
}
