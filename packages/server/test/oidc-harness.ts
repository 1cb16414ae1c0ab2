import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as oidc from "openid-client";
import { createUser } from "../src/accounts/users.ts";
import { type App, buildApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { Client, TEST_TEMPLATE, tempDir } from "./harness.ts";
import { freePort } from "./ports.ts";

/** A JSON answer of the provider, read loosely: tests assert on its fields. */
// biome-ignore lint/suspicious/noExplicitAny: tests read answers loosely and assert on them.
export async function readJson(response: Response): Promise<any> {
  return response.json();
}

export const PASSWORD = "correct horse battery";
export const SITE_SECRET = "site-secret-of-at-least-forty-three-characters-000";

export interface OidcServer {
  app: App;
  /** The server's origin, which is also PUBLIC_URL (the issuer must be what relying parties discover). */
  url: string;
  issuer: string;
  databaseUrl: string;
  close: () => Promise<void>;
}

/**
 * The real app over HTTP with PUBLIC_URL set to its own address, so a relying party discovers the issuer it
 * expects, and with the clients given (written to a CLIENTS_FILE).
 */
export async function startOidcServer(
  clients: unknown[],
  options: {
    databaseUrl?: string;
    env?: Record<string, string>;
    logStream?: NodeJS.WritableStream;
    /** buildApp's options besides the logger (e.g. the job worker's intervals). */
    app?: Omit<NonNullable<Parameters<typeof buildApp>[1]>, "logger" | "logStream">;
  } = {},
): Promise<OidcServer> {
  const dir = tempDir();
  const web = join(dir, "web");
  const clientsFile = join(dir, "clients.json");
  writeFileSync(clientsFile, JSON.stringify({ clients }));
  mkdirSync(web);
  writeFileSync(join(web, "index.html"), TEST_TEMPLATE);
  const port = await freePort();
  const databaseUrl = options.databaseUrl ?? `sqlite:${join(dir, "gatehouse.db")}`;
  const config = loadConfig({
    NODE_ENV: "test",
    DATABASE_URL: databaseUrl,
    SESSION_SECRET: "test-secret-that-is-long-enough-123456",
    LOG_LEVEL: "silent",
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    WEB_DIST: web,
    CLIENTS_FILE: clientsFile,
    ...options.env,
  });
  const app = await buildApp(config, {
    ...options.app,
    ...(options.logStream ? { logStream: options.logStream } : { logger: false }),
  });
  await app.listen({ port, host: "127.0.0.1" });
  const url = `http://127.0.0.1:${port}`;
  return { app, url, issuer: `${url}/oidc`, databaseUrl, close: () => app.close() };
}

/** An active account with a known password and a proven address (issue #13: OIDC `email_verified`). */
export async function createPerson(
  app: App,
  overrides: { requirePasswordUpdate?: boolean; emailVerified?: boolean } = {},
) {
  const email = `${crypto.randomUUID()}@example.com`;
  const user = await createUser(app.db, {
    email,
    password: PASSWORD,
    firstName: "Ann",
    lastName: "Lee",
    countryCode: "DE",
    emailVerified: true,
    ...overrides,
  });
  return { email, id: user.id };
}

/** The relying party's view of the provider (openid-client 6 over plain http, tests only). */
export function discover(server: OidcServer, clientId: string, secret?: string): Promise<oidc.Configuration> {
  return oidc.discovery(
    new URL(server.issuer),
    clientId,
    undefined,
    secret ? oidc.ClientSecretBasic(secret) : oidc.None(),
    { execute: [oidc.allowInsecureRequests] },
  );
}

/** A browser: a cookie jar that signs in through the gateway API and follows the provider's redirects. */
export class Browser extends Client {
  readonly server: OidcServer;
  constructor(server: OidcServer) {
    super(server.url);
    this.server = server;
  }

  async signIn(email: string): Promise<void> {
    await this.start();
    const answer = await this.login(email, PASSWORD);
    if (answer.status !== 200) throw new Error(`sign-in failed: ${answer.status} ${answer.text}`);
  }

  /** GET an absolute URL on the server, without following redirects; answers the status and Location. */
  async visit(url: string): Promise<{ status: number; location: string | undefined; text: string }> {
    const target = new URL(url, this.server.url);
    if (target.origin !== this.server.url) throw new Error(`not our server: ${url}`);
    // As a browser asks: the provider shows our error page to browsers, its JSON to programs.
    const answer = await this.get(`${target.pathname}${target.search}`, { accept: "text/html,*/*;q=0.8" });
    const location = answer.headers.get("location") ?? undefined;
    return { status: answer.status, location: location && new URL(location, target).href, text: answer.text };
  }

  /**
   * Runs an authorization request as a browser would: to our sign-in screen, where the screen finishes it with
   * the gateway session (agreeing when asked), and back to the provider, until it sends the browser away. Answers
   * that last address (the site's redirect URI, our error page, …).
   */
  async authorize(url: URL | string, options: { agree?: boolean } = {}): Promise<URL> {
    let next = String(url);
    for (let hops = 0; hops < 10; hops++) {
      const { status, location } = await this.visit(next);
      if (status < 300 || status >= 400 || !location)
        throw new Error(`expected a redirect from ${next}, got ${status}`);
      const target = new URL(location);
      if (target.origin !== this.server.url) return target;
      if (target.pathname !== "/service_login") {
        if (target.pathname.startsWith("/oidc/")) {
          next = target.href;
          continue;
        }
        return target;
      }
      const finished = await this.post("/api/service_login/finish", { consent: options.agree ?? false });
      if (finished.status !== 200) throw new FinishError(finished.status, finished.json?.error_code);
      next = finished.json.redirect_to;
      // Not back to the provider (issue #26: a second factor to set up first): the browser stops there.
      if (!new URL(next, this.server.url).pathname.startsWith("/oidc/")) return new URL(next, this.server.url);
    }
    throw new Error("too many redirects");
  }
}

export class FinishError extends Error {
  readonly status: number;
  readonly code: string | undefined;
  constructor(status: number, code: string | undefined) {
    super(`finish refused: ${status} ${code}`);
    this.status = status;
    this.code = code;
  }
}

/** A code + PKCE authorization request of a relying party, with what it must keep to redeem the code. */
export async function codeRequest(
  config: oidc.Configuration,
  redirectUri: string,
  parameters: Record<string, string> = {},
) {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: "openid email profile",
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state,
    nonce,
    ...parameters,
  });
  return { url, checks: { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce } };
}

/** A new person (createPerson) signed in with their password in a browser of the server's own. */
export async function signedIn(server: OidcServer) {
  const person = await createPerson(server.app);
  const browser = new Browser(server);
  await browser.signIn(person.email);
  return { person, browser };
}

/** A relying party's code flow for a signed-in browser, start to tokens: the request, its callback, the grant. */
export async function codeFlowTokens(
  config: oidc.Configuration,
  redirectUri: string,
  browser: Browser,
  parameters: Record<string, string> = {},
) {
  const request = await codeRequest(config, redirectUri, parameters);
  const callback = await browser.authorize(request.url);
  return { callback, tokens: await oidc.authorizationCodeGrant(config, callback, request.checks) };
}
