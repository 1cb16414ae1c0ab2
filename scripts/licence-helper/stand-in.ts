/**
 * The licence-helper stand-in (issue #13): a small HTTP program answering as the vendor's desktop licence helper
 * does on the person's machine (spec §7, ARCHITECTURE.md "Licence helper"), for the tests and for developers
 * (`npm run licence-helper`). `GET /activate?access_token=…&noredirect=1` verifies the token as the real helper
 * would — a JWT of the gateway's provider, checked with its `/oidc/jwks`, whose audience is the licence resource (urn:gatehouse:licence) — and
 * answers by its mode: `success` (200), `temporary` (the spec's error object with `temporary: true`, for the first
 * few calls, then success), `failure` (an error object), `slow` (no answer at all: the page's 10 s timeout runs
 * out). Not starting it is the fifth case: nothing listening.
 *
 * The page calls it from the gateway's origins, so it answers CORS for those (and a Private Network Access
 * preflight), never with credentials: the helper needs none, and the page sends none.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { LICENCE_HELPER, LICENCE_RESOURCE } from "@gatehouse/contract";
import { createRemoteJWKSet, jwtVerify } from "jose";

export const LICENCE_HELPER_MODES = ["success", "temporary", "failure", "slow"] as const;
export type LicenceHelperMode = (typeof LICENCE_HELPER_MODES)[number];

/** What a failure says, as the real helper words it (spec §8). */
export const FAILURE_MESSAGE = "License server activation failed: no seat available";
/** What an invalid or missing token gets (spec §8), never worth waiting for. */
export const NO_TOKEN_MESSAGE = "Failed to obtain access token";
/** In `temporary` mode, how many calls are told to wait before one succeeds (by default). */
export const DEFAULT_TEMPORARY_CALLS = 2;

/** One activation call the helper received, as the tests check it. */
export interface HelperRequest {
  method: string;
  path: string;
  token: string | undefined;
  noredirect: boolean;
  /** The Cookie header: the page must send none. */
  cookie: string | undefined;
  origin: string | undefined;
  /** The token verified against the gateway's keys with the API's audience; its subject when it did. */
  valid: boolean;
  subject: string | undefined;
}

export interface LicenceHelperOptions {
  /** 0 (the default) picks a free port; the helper's own is LICENCE_HELPER.port. */
  port?: number;
  host?: string;
  /** The gateway whose provider issued the tokens: its `/oidc` discovery names the issuer and the keys. */
  gatewayUrl: string;
  mode: LicenceHelperMode;
  /** `temporary` mode: calls told to wait before success (default DEFAULT_TEMPORARY_CALLS). */
  temporaryCalls?: number;
  /** Origins whose pages may call it (CORS); the gateway's own is always one. */
  origins?: string[];
}

export interface StandInLicenceHelper {
  /** Its base address, e.g. http://127.0.0.1:30304: LICENCE_HELPER_URL for the gateway. */
  url: string;
  close(): Promise<void>;
  setMode(mode: LicenceHelperMode, temporaryCalls?: number): void;
  /** Every activation call, oldest first (preflights are not in it). */
  requests: HelperRequest[];
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
  res.end(JSON.stringify(body));
};

/** The spec's error object (§3), with the activation's `temporary` flag. */
function errorObject(status: number, code: string, message: string, temporary: boolean) {
  const guid = randomUUID();
  return {
    HTTPStatus: status,
    message,
    guid,
    error_code: code,
    error_message: message,
    error_guid: guid,
    temporary,
  };
}

/** A page for a person who opened the activation link themselves (no `noredirect`: the Safari path). */
function page(res: ServerResponse, status: number, text: string) {
  res.writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
  const escaped = text.replace(/[&<>"]/gu, (c) => `&#${c.charCodeAt(0)};`);
  res.end(`<!doctype html><html lang="en"><title>Licence helper</title><main><h1>${escaped}</h1></main></html>`);
}

export async function startLicenceHelper(options: LicenceHelperOptions): Promise<StandInLicenceHelper> {
  const gateway = new URL(options.gatewayUrl);
  const origins = new Set([gateway.origin, ...(options.origins ?? [])]);
  let mode = options.mode;
  let temporaryLeft = options.temporaryCalls ?? DEFAULT_TEMPORARY_CALLS;
  const requests: HelperRequest[] = [];
  const sockets = new Set<Socket>();

  // The gateway's issuer and keys, from its discovery, read when the first token comes.
  let verifier: Promise<{ issuer: string; keys: ReturnType<typeof createRemoteJWKSet> }> | undefined;
  const discover = async () => {
    const answer = await fetch(new URL("/oidc/.well-known/openid-configuration", gateway));
    const discovery = (await answer.json()) as { issuer: string; jwks_uri: string };
    return { issuer: discovery.issuer, keys: createRemoteJWKSet(new URL(discovery.jwks_uri)) };
  };

  async function verify(token: string | undefined): Promise<string | undefined> {
    if (!token) return undefined;
    try {
      verifier ??= discover().catch((error) => {
        verifier = undefined;
        throw error;
      });
      const { issuer, keys } = await verifier;
      const { payload } = await jwtVerify(token, keys, { issuer, audience: LICENCE_RESOURCE, typ: "at+jwt" });
      return payload.sub ?? undefined;
    } catch {
      return undefined;
    }
  }

  /** CORS for the gateway's pages; never Allow-Credentials. */
  function cors(req: IncomingMessage, res: ServerResponse): void {
    const origin = req.headers.origin;
    res.setHeader("vary", "Origin");
    if (origin && origins.has(origin)) res.setHeader("access-control-allow-origin", origin);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://helper");
    cors(req, res);
    if (req.method === "OPTIONS") {
      // A CORS preflight, and Chromium's Private Network Access one (a public page calling a local address).
      res.setHeader("access-control-allow-methods", "GET");
      const asked = req.headers["access-control-request-headers"];
      if (asked) res.setHeader("access-control-allow-headers", asked);
      if (req.headers["access-control-request-private-network"] === "true") {
        res.setHeader("access-control-allow-private-network", "true");
      }
      res.writeHead(204).end();
      return;
    }
    if (req.method !== "GET" || url.pathname !== LICENCE_HELPER.activatePath) {
      json(res, 404, errorObject(404, "not_found", "Not found", false));
      return;
    }
    const token = url.searchParams.get("access_token") ?? undefined;
    const noredirect = url.searchParams.get("noredirect") === "1";
    const subject = await verify(token);
    requests.push({
      method: req.method,
      path: url.pathname,
      token,
      noredirect,
      cookie: req.headers.cookie,
      origin: req.headers.origin,
      valid: subject !== undefined,
      subject,
    });
    const answer = (status: number, body: ReturnType<typeof errorObject> | { activated: true }) =>
      noredirect
        ? json(res, status, body)
        : page(res, status, "activated" in body ? "Your licence is active" : body.message);

    if (!subject) return answer(401, errorObject(401, "invalid_token", NO_TOKEN_MESSAGE, false));
    switch (mode) {
      case "slow":
        return; // Never answers: the socket is destroyed at close.
      case "failure":
        return answer(409, errorObject(409, "activation_failed", FAILURE_MESSAGE, false));
      case "temporary":
        if (temporaryLeft > 0) {
          temporaryLeft -= 1;
          return answer(503, errorObject(503, "licence_server_busy", "License server is busy", true));
        }
        return answer(200, { activated: true });
      case "success":
        return answer(200, { activated: true });
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) json(res, 500, errorObject(500, "internal_server_error", "Internal error", false));
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host && options.host !== "0.0.0.0" ? options.host : "127.0.0.1";
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    requests,
    setMode(next, temporaryCalls = DEFAULT_TEMPORARY_CALLS) {
      mode = next;
      temporaryLeft = temporaryCalls;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
