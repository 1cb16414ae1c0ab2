/**
 * A desktop app's sign-in through the provider, as the Enscape client of the default clients file makes it: a public
 * client taking an authorization code with PKCE to a loopback address, for a JWT access token for the API (RFC 9068).
 * nodes.test.ts moves it between nodes; `npm run bench` and the soak take their refresh tokens from it
 * (scripts/bench/oidc.ts), so it imports nothing of Vitest.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Client } from "./client.ts";

/** The desktop app of the default clients file. */
export const DESKTOP_CLIENT = "enscape";
/** The resource its access tokens are for. */
export const API_RESOURCE = "urn:gatehouse:api";
/** A desktop app's loopback port; nothing needs to listen. */
export const LOOPBACK = "http://127.0.0.1:49152/callback";

/**
 * The signed-in browser `c` takes the app's authorization request through the provider's hops and our
 * `/service_login` screen's finish, each hop on the next base URL of `route` (nodes behind a load balancer); the app
 * then exchanges the code at `tokenAt`. Throws at any refusal.
 */
export async function desktopTokens(
  c: Client,
  route: string[],
  tokenAt: string,
  scope: string,
): Promise<{ access_token: string; refresh_token: string }> {
  const verifier = randomBytes(32).toString("base64url");
  const query = new URLSearchParams({
    client_id: DESKTOP_CLIENT,
    redirect_uri: LOOPBACK,
    response_type: "code",
    scope,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    state: randomBytes(8).toString("hex"),
  });
  let hop = 0;
  const at = () => route[hop++ % route.length] as string;
  c.base = at();
  let location = (await c.get(`/oidc/auth?${query}`)).headers.get("location") ?? "";
  while (!location.startsWith(LOOPBACK)) {
    if (hop > 8) throw new Error(`no code: ${location}`);
    c.base = at();
    if (location.startsWith("/service_login")) {
      const finished = await c.post("/api/service_login/finish", {});
      if (finished.status !== 200) throw new Error(`finish refused: ${finished.status} ${finished.text}`);
      location = finished.json.redirect_to;
      continue;
    }
    const next = new URL(location, "http://localhost:8080");
    location = (await c.get(next.pathname + next.search)).headers.get("location") ?? "";
  }
  return desktopGrant(tokenAt, {
    grant_type: "authorization_code",
    code: new URL(location).searchParams.get("code") ?? "",
    redirect_uri: LOOPBACK,
    code_verifier: verifier,
  });
}

/** A token request of the desktop app for the API at `base`; throws unless it answers both tokens. */
export async function desktopGrant(
  base: string,
  params: Record<string, string>,
): Promise<{ access_token: string; refresh_token: string }> {
  const answer = await fetch(`${base}/oidc/token`, {
    method: "POST",
    body: new URLSearchParams({ client_id: DESKTOP_CLIENT, resource: API_RESOURCE, ...params }),
  });
  const body = (await answer.json()) as { access_token?: string; refresh_token?: string; error?: string };
  if (!answer.ok || !body.access_token || !body.refresh_token)
    throw new Error(`grant at ${base} refused: ${answer.status} ${JSON.stringify(body)}`);
  return body as { access_token: string; refresh_token: string };
}
