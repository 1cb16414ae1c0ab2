/**
 * The demo's third-party site: a real OpenID Connect relying party (openid-client, authorization code with PKCE)
 * registered in the clients file without `first_party`, so signing in to it shows Gatehouse's consent screen.
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import * as oidc from "openid-client";

export interface ExampleClient {
  url: string;
  close(): Promise<void>;
}

export interface ExampleClientOptions {
  /** Gatehouse's issuer (PUBLIC_URL/oidc). */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The client's registered redirect URI: the server listens on its host and port. */
  redirectUri: string;
  /** How the site names itself on its page. */
  name: string;
}

/** A pending sign-in: the PKCE verifier kept server-side, found again by the state (RFC 7636, RFC 9700 §2.1). */
interface Pending {
  verifier: string;
  createdAt: number;
}

const PENDING_TTL_MS = 10 * 60_000;

export async function startExampleClient(options: ExampleClientOptions): Promise<ExampleClient> {
  const redirect = new URL(options.redirectUri);
  const pending = new Map<string, Pending>();
  const sockets = new Set<Socket>();
  let configuration: Promise<oidc.Configuration> | undefined;
  // Discovered at the first sign-in: the gateway may still be starting when the site does.
  const discover = () => {
    configuration ??= oidc
      .discovery(new URL(options.issuer), options.clientId, undefined, oidc.ClientSecretBasic(options.clientSecret), {
        // The demo's gateway is plain http on loopback; a real site talks https only.
        execute: [oidc.allowInsecureRequests],
      })
      .catch((error: unknown) => {
        configuration = undefined;
        throw error;
      });
    return configuration;
  };

  const page = (response: ServerResponse, status: number, body: string) => {
    response.writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
    response.end(
      `<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
        `<title>${escapeHtml(options.name)}</title><main><h1>${escapeHtml(options.name)}</h1>${body}</main></html>`,
    );
  };

  const signIn = async (response: ServerResponse) => {
    const config = await discover();
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    for (const [key, entry] of pending) if (Date.now() - entry.createdAt > PENDING_TTL_MS) pending.delete(key);
    pending.set(state, { verifier, createdAt: Date.now() });
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: options.redirectUri,
      scope: "openid email profile",
      state,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
    });
    response.writeHead(302, { location: url.href, "cache-control": "no-store" }).end();
  };

  const callback = async (url: URL, response: ServerResponse) => {
    const state = url.searchParams.get("state") ?? "";
    const entry = pending.get(state);
    if (!entry) return page(response, 400, `<p>This sign-in is unknown or was already used.</p>${startLink()}`);
    pending.delete(state);
    if (url.searchParams.has("error")) {
      const error = url.searchParams.get("error") ?? "";
      return page(response, 200, `<p>Gatehouse answered <code>${escapeHtml(error)}</code>.</p>${startLink()}`);
    }
    const config = await discover();
    const tokens = await oidc.authorizationCodeGrant(config, url, {
      pkceCodeVerifier: entry.verifier,
      expectedState: state,
    });
    // The ID token proves who signed in; the name and address come from userinfo, as the scopes granted allow.
    const subject = tokens.claims()?.sub ?? oidc.skipSubjectCheck;
    const claims: Record<string, unknown> = await oidc.fetchUserInfo(config, tokens.access_token, subject);
    const who = escapeHtml(String(claims.name ?? claims.email ?? claims.sub));
    return page(
      response,
      200,
      `<p>Signed in as <strong>${who}</strong> (${escapeHtml(String(claims.email ?? ""))}).</p>` +
        `<p>Granted scope: <code>${escapeHtml(tokens.scope ?? "")}</code></p>${startLink("Sign in again")}`,
    );
  };

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", redirect.origin);
    const handle =
      url.pathname === "/login"
        ? signIn(response)
        : url.pathname === redirect.pathname
          ? callback(url, response)
          : Promise.resolve(
              page(response, 200, `<p>A third-party site that signs people in with Gatehouse.</p>${startLink()}`),
            );
    handle.catch((error: unknown) =>
      page(response, 502, `<p>${escapeHtml((error as Error).message)}</p>${startLink()}`),
    );
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(Number(redirect.port), redirect.hostname, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `${redirect.protocol}//${redirect.hostname}:${port}/`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

function startLink(label = "Sign in with Gatehouse"): string {
  return `<p><a href="/login">${label}</a></p>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/gu, (c) => `&#${c.charCodeAt(0)};`);
}
