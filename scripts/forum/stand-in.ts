/**
 * A stand-in for a Discourse forum (issue #13), for tests and developers: a small real HTTP server that does what
 * Discourse does with DiscourseConnect (discourse/discourse `lib/discourse_connect_base.rb`,
 * `app/controllers/session_controller.rb`) and the two admin API calls our sign-out makes (meta.discourse.org
 * topic 60464). Written from the protocol with node:crypto, not from Gatehouse's code.
 *
 * - `GET /session/sso?return_path=/`: starts DiscourseConnect — a nonce (kept 10 minutes, used once), the signed
 *   payload `nonce=…&return_sso_url=<forum>/session/sso_login`, and a redirect to `<gateway>/discourse/login`.
 * - `GET /session/sso_login?sso=…&sig=…`: checks our answer's signature and nonce and signs the person in to the
 *   forum (a cookie), showing who they are; `GET /` shows the signed-in person or a "Log in" link.
 * - `GET /users/by-external/{id}.json`, `POST /admin/users/{id}/log_out`: the admin API, checking `Api-Key` and
 *   `Api-Username`; log-outs are recorded. `failNext(n)` answers the next n admin calls 500; `breakConnections(true)`
 *   drops them (a forum that cannot be reached).
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** What the forum learned from one DiscourseConnect answer. */
export interface ForumSignIn {
  fields: Record<string, string>;
  at: number;
}

export interface ForumUser {
  id: number;
  externalId: string;
  email: string;
  name: string;
  username: string;
  active: boolean;
}

export interface StandInForum {
  url: string;
  /** The address that starts a DiscourseConnect sign-in (what the forum's "Log in" button does). */
  loginUrl: string;
  /** Every accepted answer, oldest first. */
  signIns: ForumSignIn[];
  /** Answers refused, with why (bad signature, unknown or used nonce…). */
  refusals: string[];
  users: Map<string, ForumUser>;
  /** External ids signed out through the admin API, one entry per log_out call. */
  logOuts: string[];
  /** Admin API calls received (method and path), failed ones included. */
  apiCalls: string[];
  /** Answer the next `count` admin API calls with 500. */
  failNext(count: number): void;
  /** While on, admin API connections are dropped without an answer. */
  breakConnections(on: boolean): void;
  /** Points the forum's "discourse connect url" at a gateway started after it. */
  setGatewayUrl(url: string): void;
  /** Makes a signed DiscourseConnect request as the forum would (nonce stored), for tests that drive the API. */
  request(returnSsoUrl?: string): { sso: string; sig: string; nonce: string };
  close(): Promise<void>;
}

const NONCE_TTL_MS = 10 * 60 * 1000;

const hmacHex = (secret: string, text: string) => createHmac("sha256", secret).update(text).digest("hex");

function sameHex(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/gu, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;
}

export async function startStandInForum(options: {
  port?: number;
  /** Gatehouse's origin, e.g. http://localhost:8080: the forum's "discourse connect url" is its /discourse/login. */
  gatewayUrl: string;
  secret: string;
  apiKey: string;
  apiUsername?: string;
}): Promise<StandInForum> {
  const { secret, apiKey } = options;
  const apiUsername = options.apiUsername ?? "system";
  const nonces = new Map<string, number>();
  const sessions = new Map<string, string>();
  const users = new Map<string, ForumUser>();
  const signIns: ForumSignIn[] = [];
  const refusals: string[] = [];
  const logOuts: string[] = [];
  const apiCalls: string[] = [];
  let failing = 0;
  let broken = false;
  let url = "";
  let gatewayUrl = options.gatewayUrl;

  function makeRequest(returnSsoUrl = `${url}/session/sso_login`) {
    const nonce = randomBytes(16).toString("hex");
    nonces.set(nonce, Date.now() + NONCE_TTL_MS);
    const payload = new URLSearchParams({ nonce, return_sso_url: returnSsoUrl }).toString();
    // Ruby's Base64.encode64, as Discourse sends it: a line break every 60 characters and at the end.
    const sso = `${(
      Buffer.from(payload)
        .toString("base64")
        .match(/.{1,60}/gu) ?? []
    ).join("\n")}\n`;
    return { sso, sig: hmacHex(secret, sso), nonce };
  }

  function signInFromAnswer(query: URLSearchParams): { user: ForumUser } | { refused: string } {
    const sso = query.get("sso") ?? "";
    const sig = query.get("sig") ?? "";
    if (!sameHex(hmacHex(secret, sso), sig)) return { refused: "bad signature" };
    const fields = Object.fromEntries(new URLSearchParams(Buffer.from(sso, "base64").toString("utf8")));
    const nonce = fields.nonce ?? "";
    const expires = nonces.get(nonce);
    if (expires === undefined) return { refused: "unknown or used nonce" };
    nonces.delete(nonce);
    if (expires < Date.now()) return { refused: "expired nonce" };
    const externalId = fields.external_id ?? "";
    if (!externalId || !fields.email || ["none", "nil", "blank", "null"].includes(externalId)) {
      return { refused: "missing external_id or email" };
    }
    signIns.push({ fields, at: Date.now() });
    const known = users.get(externalId);
    const user: ForumUser = {
      id: known?.id ?? users.size + 1,
      externalId,
      email: fields.email,
      name: fields.name ?? "",
      username: known?.username ?? fields.username ?? `user${users.size + 1}`,
      active: fields.require_activation !== "true",
    };
    users.set(externalId, user);
    return { user };
  }

  function adminApi(request: IncomingMessage, response: ServerResponse, path: string): unknown {
    apiCalls.push(`${request.method} ${path}`);
    if (broken) {
      request.socket.destroy();
      return;
    }
    const json = (status: number, body: unknown) =>
      response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (failing > 0) {
      failing--;
      return json(500, { errors: ["stand-in outage"] });
    }
    if (request.headers["api-key"] !== apiKey || request.headers["api-username"] !== apiUsername) {
      return json(403, {
        errors: ["You are not permitted to view the requested resource."],
        error_type: "invalid_access",
      });
    }
    const byExternal = /^\/users\/by-external\/([^/]+)\.json$/u.exec(path);
    if (request.method === "GET" && byExternal) {
      const user = users.get(decodeURIComponent(byExternal[1] ?? ""));
      if (!user) return json(404, { errors: ["The requested URL or resource could not be found."] });
      return json(200, { user: { id: user.id, username: user.username, name: user.name, email: user.email } });
    }
    const logOut = /^\/admin\/users\/(\d+)\/log_out$/u.exec(path);
    if (request.method === "POST" && logOut) {
      const user = [...users.values()].find((u) => u.id === Number(logOut[1]));
      if (!user) return json(404, { errors: ["The requested URL or resource could not be found."] });
      for (const [token, externalId] of sessions) if (externalId === user.externalId) sessions.delete(token);
      logOuts.push(user.externalId);
      return json(200, { success: "OK" });
    }
    json(404, { errors: ["not found"] });
  }

  const server = createServer((request, response) => {
    const address = new URL(request.url ?? "/", url);
    const path = address.pathname;
    const html = (status: number, body: string, headers: Record<string, string> = {}) =>
      response.writeHead(status, { "content-type": "text/html; charset=utf-8", ...headers }).end(body);
    if (path.startsWith("/users/") || path.startsWith("/admin/")) return adminApi(request, response, path);
    if (path === "/session/sso") {
      const { sso, sig } = makeRequest();
      const target = new URL("/discourse/login", gatewayUrl);
      target.searchParams.set("sso", sso);
      target.searchParams.set("sig", sig);
      return response.writeHead(302, { location: target.href }).end();
    }
    if (path === "/session/sso_login") {
      const outcome = signInFromAnswer(address.searchParams);
      if ("refused" in outcome) {
        refusals.push(outcome.refused);
        return html(403, page("Login error", `<p>${escapeHtml(outcome.refused)}</p>`));
      }
      const token = randomBytes(16).toString("hex");
      sessions.set(token, outcome.user.externalId);
      return html(302, "", { location: "/", "set-cookie": `forum_session=${token}; Path=/; HttpOnly; SameSite=Lax` });
    }
    if (path === "/") {
      const token = /(?:^|;\s*)forum_session=([0-9a-f]+)/u.exec(request.headers.cookie ?? "")?.[1];
      const externalId = token ? sessions.get(token) : undefined;
      const user = externalId ? users.get(externalId) : undefined;
      if (!user) return html(200, page("Stand-in forum", '<p><a href="/session/sso">Log in</a></p>'));
      const status = user.active ? "" : "<p>Your account still needs activation.</p>";
      return html(
        200,
        page(
          "Stand-in forum",
          `<p id="signed-in">Signed in as <span id="name">${escapeHtml(user.name)}</span> &lt;<span id="email">${escapeHtml(user.email)}</span>&gt; (@${escapeHtml(user.username)})</p>${status}`,
        ),
      );
    }
    html(404, page("Not found", ""));
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    loginUrl: `${url}/session/sso`,
    signIns,
    refusals,
    users,
    logOuts,
    apiCalls,
    failNext: (count) => {
      failing = count;
    },
    breakConnections: (on) => {
      broken = on;
    },
    request: makeRequest,
    setGatewayUrl: (value) => {
      gatewayUrl = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
