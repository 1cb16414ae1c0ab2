import { LEGACY_STATE_COOKIE, LEGACY_STATE_TTL_S, ROUTES, WEB_CLIENT_ID } from "@gatehouse/contract";

/**
 * The legacy flow of spec §4 (issue #10 §3; docs/decisions.md "The legacy flow"), the browser's half: the login
 * page starts an authorization request of the web app's own client (code + PKCE, RFC 7636) for a legacy site's
 * token (the resource is the exact return address: the provider refuses any address that is not a legacy client's
 * registered redirect URI), and the callback finishes it. The state cookie of spec §9 binds the callback to the browser that started
 * the request (RFC 6749 §10.12, ASVS 10.1.2); the PKCE verifier and the return address wait in local storage under
 * the state, so a sign-in finished in another tab of the same browser still completes.
 */

const PROVIDER = "/oidc";
const PENDING_PREFIX = "gatehouse.legacy.";
const RANDOM_BYTES = 32;
const SECOND_MS = 1000;

interface Pending {
  verifier: string;
  returnTo: string;
  /** When the request started (ms), so abandoned ones are swept. */
  at: number;
}

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/u, "");

/** 256 random bits (RFC 7636 §7.1, RFC 6749 §10.10: unguessable state and verifier). */
const randomValue = () => base64url(crypto.getRandomValues(new Uint8Array(RANDOM_BYTES)));

async function challengeOf(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}

const callbackUrl = () => `${window.location.origin}${ROUTES.LEGACY_LOGIN_CALLBACK.path}`;

/** Spec §9: Secure over https, SameSite=Lax, short-lived; sent only to the callback's path. */
function writeStateCookie(value: string, maxAgeSeconds: number): void {
  const secure = window.location.protocol === "https:" ? "; Secure" : "";
  // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is missing from browsers we serve (older Safari and Firefox).
  document.cookie = `${LEGACY_STATE_COOKIE}=${value}; Path=${ROUTES.LEGACY_LOGIN_CALLBACK.path}; Max-Age=${maxAgeSeconds}; SameSite=Lax${secure}`;
}

/** The state the cookie holds, if the browser still has it. */
export function readStateCookie(): string | undefined {
  const prefix = `${LEGACY_STATE_COOKIE}=`;
  const entry = document.cookie.split("; ").find((part) => part.startsWith(prefix));
  return entry ? entry.slice(prefix.length) : undefined;
}

export function clearStateCookie(): void {
  writeStateCookie("", 0);
}

/** Requests older than the cookie can no longer finish: their entries go. */
function sweep(now: number): void {
  for (const key of Object.keys(localStorage)) {
    if (!key.startsWith(PENDING_PREFIX)) continue;
    const pending = parse(localStorage.getItem(key));
    if (!pending || now - pending.at > LEGACY_STATE_TTL_S * SECOND_MS) localStorage.removeItem(key);
  }
}

function parse(raw: string | null): Pending | undefined {
  try {
    const value = JSON.parse(raw ?? "null") as Partial<Pending> | null;
    return typeof value?.verifier === "string" && typeof value.returnTo === "string" && typeof value.at === "number"
      ? (value as Pending)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The request a state names, removed as it is read: a state finishes at most once. */
export function takePending(state: string | null): Pending | undefined {
  if (!state) return undefined;
  const key = `${PENDING_PREFIX}${state}`;
  const pending = parse(localStorage.getItem(key));
  localStorage.removeItem(key);
  return pending;
}

/** Starts the flow for a legacy site's return address: cookie, stored verifier, then the authorization endpoint. */
export async function startLegacyFlow(returnTo: string): Promise<void> {
  const state = randomValue();
  const verifier = randomValue();
  const now = Date.now();
  sweep(now);
  localStorage.setItem(`${PENDING_PREFIX}${state}`, JSON.stringify({ verifier, returnTo, at: now }));
  writeStateCookie(state, LEGACY_STATE_TTL_S);
  const query = new URLSearchParams({
    client_id: WEB_CLIENT_ID,
    response_type: "code",
    scope: "openid",
    redirect_uri: callbackUrl(),
    state,
    code_challenge: await challengeOf(verifier),
    code_challenge_method: "S256",
    // RFC 8707: the token is for this address only, which the provider accepts only when it is exactly a legacy
    // client's redirect URI (RFC 9700 §2.1); the token's audience is that client's id.
    resource: returnTo,
  });
  window.location.assign(`${PROVIDER}/auth?${query}`);
}

/** What the token endpoint answers (RFC 6749 §5.1), the part the site is given. */
export interface SiteToken {
  access_token: string;
  expires_in: number;
}

/** Redeems the code at the token endpoint with the verifier (RFC 7636 §4.5) for the site's token. */
export async function redeemCode(code: string, pending: Pending): Promise<SiteToken> {
  const response = await fetch(`${PROVIDER}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      client_id: WEB_CLIENT_ID,
      code,
      redirect_uri: callbackUrl(),
      code_verifier: pending.verifier,
      resource: pending.returnTo,
    }),
    credentials: "omit",
  });
  const answer = (await response.json().catch(() => undefined)) as Partial<SiteToken> | undefined;
  if (!response.ok || typeof answer?.access_token !== "string") throw new Error(`token endpoint ${response.status}`);
  return { access_token: answer.access_token, expires_in: Number(answer.expires_in) };
}
