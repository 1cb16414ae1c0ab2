/**
 * The OpenID Connect part of `npm run bench` (issue #10): refresh-token grants of a desktop app, as the Enscape
 * client of the default clients file makes them — a public client whose refresh token rotates at every use, asking
 * each time for a JWT access token for the API (RFC 9068, signed with RS256). Each chain presents the refresh
 * token the previous answer gave it.
 */
import { Client } from "../../packages/server/test/client.ts";
import { API_RESOURCE, DESKTOP_CLIENT, desktopTokens } from "../../packages/server/test/desktop-sign-in.ts";

/** One desktop-app sign-in through the browser flow (gateway sign-in, the provider, our screen's API), to tokens. */
async function signInOnce(base: string, email: string, password: string): Promise<string> {
  const c = await new Client(base).start();
  const login = await c.login(email, password);
  if (login.status !== 200) throw new Error(`sign-in failed: ${login.status}`);
  return (await desktopTokens(c, [base], base, "openid api")).refresh_token;
}

/** One refresh token per connection, each from its own sign-in. */
export async function refreshTokens(base: string, email: string, password: string, count: number): Promise<string[]> {
  const tokens: string[] = [];
  for (let i = 0; i < count; i++) tokens.push(await signInOnce(base, email, password));
  return tokens;
}

export interface RefreshResult {
  /** Grants answered per second over the run. */
  rate: number;
  p99Ms: number;
  failures: number;
}

/** The answer of one refresh grant: the rotated token, or the status and body of a refusal. */
export type RefreshAnswer = { ok: true; token: string } | { ok: false; status: number; body: string };

/**
 * One refresh grant presenting `token`.
 * @param scope a narrower scope for the refresh (RFC 6749 §6): `api` asks for the API's token alone, no ID token.
 */
export async function refreshGrant(
  base: string,
  token: string,
  scope?: string,
  init: RequestInit = {},
): Promise<RefreshAnswer> {
  const response = await fetch(`${base}/oidc/token`, {
    ...init,
    method: "POST",
    body: new URLSearchParams({
      grant_type: "refresh_token",
      refresh_token: token,
      client_id: DESKTOP_CLIENT,
      resource: API_RESOURCE,
      ...(scope ? { scope } : {}),
    }),
  });
  const text = await response.text();
  let rotated: string | undefined;
  try {
    rotated = (JSON.parse(text) as { refresh_token?: string }).refresh_token;
  } catch {}
  return response.ok && rotated ? { ok: true, token: rotated } : { ok: false, status: response.status, body: text };
}

/**
 * Refresh grants for the given time, each chain presenting the token its previous answer rotated to. A chain
 * waits for its answer before its next request (autocannon prepares requests ahead, which would present a token
 * twice and, rightly, end the grant), so the load is a loop per chain over keep-alive connections.
 */
export async function refreshLoad(
  base: string,
  tokens: string[],
  durationS: number,
  /** A narrower scope for each refresh (RFC 6749 §6): `api` asks for the API's token alone, no ID token. */
  scope?: string,
): Promise<RefreshResult> {
  const until = performance.now() + durationS * 1000;
  const latencies: number[] = [];
  let failures = 0;
  const chain = async (first: string) => {
    let token = first;
    while (performance.now() < until) {
      const started = performance.now();
      const answer = await refreshGrant(base, token, scope);
      latencies.push(performance.now() - started);
      if (!answer.ok) {
        failures += 1;
        return;
      }
      token = answer.token;
    }
  };
  const began = performance.now();
  await Promise.all(tokens.map(chain));
  const elapsedS = (performance.now() - began) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    rate: latencies.length / elapsedS,
    p99Ms: Math.round(latencies[Math.floor(latencies.length * 0.99)] ?? 0),
    failures,
  };
}
