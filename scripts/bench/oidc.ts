/**
 * The OpenID Connect part of `npm run bench` (issue #10): refresh-token grants of a desktop app, as the Enscape
 * client of the default clients file makes them — a public client whose refresh token rotates at every use, asking
 * each time for a JWT access token for the API (RFC 9068, signed with RS256). Each chain presents the refresh
 * token the previous answer gave it.
 */
import { createHash, randomBytes } from "node:crypto";

const CLIENT_ID = "enscape";
const API_RESOURCE = "urn:gatehouse:api";

/** A cookie jar of name=value pairs, as a browser keeps them for one host. */
export class Jar {
  private readonly cookies = new Map<string, string>();
  take(response: Response): void {
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const at = (pair ?? "").indexOf("=");
      this.cookies.set((pair ?? "").slice(0, at), (pair ?? "").slice(at + 1));
    }
  }
  get header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }
}

async function call(jar: Jar, url: string, init: RequestInit = {}): Promise<Response> {
  const response = await fetch(url, {
    ...init,
    redirect: "manual",
    headers: { ...(init.headers as Record<string, string>), cookie: jar.header, accept: "text/html" },
  });
  jar.take(response);
  return response;
}

/** One desktop-app sign-in through the browser flow (gateway sign-in, the provider, our screen's API), to tokens. */
async function signInOnce(base: string, email: string, password: string): Promise<string> {
  const jar = new Jar();
  await call(jar, `${base}/api/session`);
  const csrfOf = async (response: Response) => response.headers.get("x-csrf-token") ?? "";
  let csrf = await csrfOf(await call(jar, `${base}/api/session`));
  const login = await call(jar, `${base}/api/account/login`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-csrf-token": csrf },
    body: JSON.stringify({ email, password }),
  });
  if (!login.ok) throw new Error(`sign-in failed: ${login.status}`);
  csrf = await csrfOf(login);
  const verifier = randomBytes(32).toString("base64url");
  const redirectUri = "http://127.0.0.1:49152/callback"; // a desktop app's loopback port; nothing needs to listen
  const query = new URLSearchParams({
    client_id: CLIENT_ID,
    redirect_uri: redirectUri,
    response_type: "code",
    scope: "openid api",
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    state: randomBytes(8).toString("hex"),
  });
  let location = (await call(jar, `${base}/oidc/auth?${query}`)).headers.get("location") ?? "";
  for (let hops = 0; !location.startsWith(redirectUri); hops++) {
    if (hops > 5) throw new Error(`no code: ${location}`);
    if (location.startsWith("/service_login")) {
      const finished = await call(jar, `${base}/api/service_login/finish`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-csrf-token": csrf },
        body: "{}",
      });
      if (!finished.ok) throw new Error(`finish refused: ${finished.status} ${await finished.text()}`);
      location = ((await finished.json()) as { redirect_to: string }).redirect_to;
    }
    location = (await call(jar, new URL(location, base).href)).headers.get("location") ?? "";
  }
  const code = new URL(location).searchParams.get("code") ?? "";
  const tokens = await fetch(`${base}/oidc/token`, {
    method: "POST",
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
      client_id: CLIENT_ID,
      resource: API_RESOURCE,
    }),
  });
  const body = (await tokens.json()) as { refresh_token?: string };
  if (!body.refresh_token) throw new Error(`no refresh token: ${JSON.stringify(body)}`);
  return body.refresh_token;
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
      client_id: CLIENT_ID,
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
