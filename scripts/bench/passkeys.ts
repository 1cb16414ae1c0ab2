/**
 * Passkey sign-ins for `npm run bench` (issue #26): accounts get a passkey of a software authenticator (the tests'
 * own, P-256 keys from node:crypto) by the real registration ceremony, then browsers sign in with them alone —
 * the request options, an assertion signed here, the verification — as many at once as the password load has.
 */
import type { SoftAuthenticator } from "../../packages/server/test/software-authenticator.ts";

/** One browser: its cookie and CSRF token, moved on by each answer (a sign-in hands it a new session). */
interface BrowserState {
  cookie: string;
  csrf: string;
  /** A client address of its own behind the load balancer: the per-address limits measure nothing here. */
  address: string;
}

let addresses = 0;
const nextAddress = () => {
  addresses += 1;
  return `10.${200 + ((addresses >> 16) & 15)}.${(addresses >> 8) & 255}.${addresses & 255}`;
};

async function call(base: string, browser: BrowserState, path: string, body?: unknown) {
  const answer = await fetch(`${base}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: {
      "content-type": "application/json",
      cookie: browser.cookie,
      "x-csrf-token": browser.csrf,
      "x-forwarded-for": browser.address,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const cookie = answer.headers.getSetCookie()[0];
  if (cookie) browser.cookie = cookie.split(";")[0] as string;
  browser.csrf = answer.headers.get("x-csrf-token") ?? browser.csrf;
  const text = await answer.text();
  return { ok: answer.ok, status: answer.status, json: text ? JSON.parse(text) : undefined, text };
}

async function newBrowser(base: string): Promise<BrowserState> {
  const browser = { cookie: "", csrf: "", address: nextAddress() };
  await call(base, browser, "/api/session");
  return browser;
}

/** Signs `email` in with the password and adds a passkey of `authenticator`. */
export async function addPasskey(base: string, email: string, password: string, authenticator: SoftAuthenticator) {
  const browser = await newBrowser(base);
  const login = await call(base, browser, "/api/account/login", { email, password });
  if (!login.ok) throw new Error(`passkey bench: sign-in of ${email} failed: ${login.status} ${login.text}`);
  const options = await call(base, browser, "/api/account/passkeys/options", {});
  const added = await call(base, browser, "/api/account/passkeys", { response: authenticator.create(options.json) });
  if (!added.ok) throw new Error(`passkey bench: adding a passkey failed: ${added.status} ${added.text}`);
}

/** One passkey sign-in from a browser: the options, the assertion, the verification (which opens a session). */
async function passkeySignIn(base: string, browser: BrowserState, authenticator: SoftAuthenticator) {
  const options = await call(base, browser, "/api/sign-in/passkey/options", {});
  if (!options.ok) return false;
  return (await call(base, browser, "/api/sign-in/passkey", { response: authenticator.get(options.json) })).ok;
}

export interface PasskeyLoadResult {
  /** Sign-ins per second (each two requests: options, then the assertion). */
  rate: number;
  p99Ms: number;
  failures: number;
}

/** `concurrency` browsers signing in with passkeys for `durationS`, each with an account's authenticator. */
export async function passkeyLoad(
  base: string,
  authenticators: SoftAuthenticator[],
  concurrency: number,
  durationS: number,
): Promise<PasskeyLoadResult> {
  const browsers = await Promise.all(Array.from({ length: concurrency }, () => newBrowser(base)));
  const until = performance.now() + durationS * 1000;
  const latencies: number[] = [];
  let failures = 0;
  const loop = async (browser: BrowserState, index: number) => {
    const authenticator = authenticators[index % authenticators.length] as SoftAuthenticator;
    while (performance.now() < until) {
      browser.address = nextAddress();
      const started = performance.now();
      if (await passkeySignIn(base, browser, authenticator)) latencies.push(performance.now() - started);
      else failures += 1;
    }
  };
  const began = performance.now();
  await Promise.all(browsers.map(loop));
  const elapsedS = (performance.now() - began) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    rate: latencies.length / elapsedS,
    p99Ms: Math.round(latencies[Math.floor(latencies.length * 0.99)] ?? 0),
    failures,
  };
}
