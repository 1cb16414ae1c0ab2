import { DEFAULT_COUNTRY, DEVICE_TRUST_MS, SESSION_ABSOLUTE_MS, SESSION_LINK_MARKER_COOKIE } from "@gatehouse/contract";
import type {
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
  RouteOptions,
} from "fastify";
import fp from "fastify-plugin";
import { issueDeviceCookie, newDeviceId, trustedDevice } from "../accounts/device-cookies.ts";
import type { AttemptSource } from "../accounts/throttle.ts";
import type { Config } from "../config.ts";
import { onSessionsEnded, type SessionsEndedListener } from "../events/sessions-ended.ts";
import { isFresh } from "../factors/step-up.ts";
import {
  type ClientMeta,
  closeSession,
  csrfMatches,
  csrfToken,
  findSession,
  isSessionToken,
  newSessionToken,
} from "../sessions/sessions.ts";
import { isLinkedBrandHost } from "../settings/sites.ts";
import { type Browser, cancelAttempt, findAttempt } from "../signin/attempt.ts";
import type { Db } from "../store/db.ts";
import type { SignInAttemptRow } from "../store/schema.ts";
import type { SessionWithUser } from "../store/sessions.ts";
import { canonicalPath, isApiRoute } from "./api-paths.ts";
import { visitorCountry } from "./client.ts";
import { ApiError, sendError } from "./errors.ts";

export interface SessionState {
  /** The cookie's token: signed-in when `user` is set, anonymous otherwise. */
  token: string;
  user: SessionWithUser | undefined;
}

/**
 * Headers of every /api answer (OWASP REST security cheat sheet): never cached, never sniffed, never framed,
 * never embedded cross-origin. Set once as a frozen object: the hot path does no per-request header work.
 */
function apiHeaders(https: boolean): Record<string, string> {
  return Object.freeze({
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
    "cross-origin-resource-policy": "same-origin",
    "referrer-policy": "no-referrer",
    ...(https ? { "strict-transport-security": "max-age=31536000; includeSubDomains" } : {}),
  });
}

declare module "fastify" {
  interface FastifyRequest {
    /** Set on every /api request by the guard; elsewhere read it through `app.readSession(request)`. */
    session: SessionState;
    /** The memoised read of app.readSession on a request outside /api. */
    sessionRead: Promise<SessionWithUser | undefined> | null;
    /** The sign-in attempt an owed step's call is made for, when it has no session (http/mount.ts sets it). */
    attempt: SignInAttemptRow | undefined;
    /** Issue #27: the trusted country header's code (visitorCountry), null when unknown; for sessions and audit. */
    country: string | null;
  }
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
export const CSRF_HEADER = "x-csrf-token";

/** `__Host-` binds the cookie to our exact origin, over https only (ASVS 3.4.4). */
export function sessionCookieName(publicUrl: URL): string {
  return publicUrl.protocol === "https:" ? "__Host-gh_session" : "gh_session";
}

/** The device cookie (docs/decisions.md "Sign-in throttling"), `__Host-` over https like the session's. */
export function deviceCookieName(publicUrl: URL): string {
  return publicUrl.protocol === "https:" ? "__Host-gh_device" : "gh_device";
}

/**
 * Requests Fastify refuses before routing them (a malformed escape, an over-long parameter) still get the spec's
 * error object, with the API's headers when they aim at /api (Fastify's `frameworkErrors`).
 */
export function refuseUnroutable(publicUrl: URL) {
  const headers = apiHeaders(publicUrl.protocol === "https:");
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (isApiRoute(canonicalPath(request.url))) reply.headers(headers);
    sendError(reply, "invalid_request", { cause: error });
  };
}

/**
 * Sessions and CSRF for every /api route (ASVS 3.5.1 and V4; OWASP CSRF cheat sheet). The cookie is opaque, HttpOnly,
 * SameSite=Lax; every state-changing call must echo the session's CSRF token in X-CSRF-Token, or gets 403.
 *
 * The guard is attached to each route declared under /api as the route is declared (`onRoute`), not chosen by
 * matching the request's URL: the router decodes escapes and accepts absolute-form targets, so a prefix test on
 * the raw URL could be walked around (`/%61pi/…`), while a hook that belongs to the handler runs however the
 * path was spelled. Requests that match no route are classified by their canonical path, so an unknown /api path
 * answers the API's error object and headers under any spelling.
 */
export const sessionPlugin = fp(async (app: FastifyInstance, opts: { config: Config; db: Db }) => {
  const { config, db } = opts;
  const cookieName = sessionCookieName(config.publicUrl);
  const deviceCookie = deviceCookieName(config.publicUrl);
  const secure = config.publicUrl.protocol === "https:";

  const headers = apiHeaders(secure);

  app.decorateRequest("session", undefined as unknown as SessionState);
  app.decorateRequest("sessionRead", null);
  app.decorateRequest("attempt", undefined);
  app.decorateRequest("country", null);
  app.addHook("onRequest", (request, _reply, done) => {
    const country = visitorCountry(request, config);
    request.country = country === DEFAULT_COUNTRY ? null : country;
    done();
  });

  const guard: onRequestHookHandler = async (request, reply) => {
    reply.headers(headers);
    const presented = request.cookies[cookieName];
    const known = isSessionToken(presented);
    const token = known ? presented : newSessionToken();
    if (!SAFE_METHODS.has(request.method) && !(known && csrfMatches(config.sessionSecret, token, headerOf(request)))) {
      return sendError(reply, "csrf_invalid");
    }
    request.session = { token, user: known ? await findSession(db, token) : undefined };
    if (!known) {
      setCookie(reply, token);
      sendCsrfToken(request, reply);
    }
  };

  // Routes registered after this plugin (all of them: app.ts registers it first) get the guard before any other hook.
  app.addHook("onRoute", (route: RouteOptions) => {
    if (!isApiRoute(route.url)) return;
    const others = route.onRequest === undefined ? [] : [route.onRequest].flat();
    route.onRequest = [guard, ...others];
  });

  // Runs before every request of every route: a plain callback, so a matched request pays no promise for it.
  app.addHook("onRequest", (request, reply, done) => {
    if (!request.is404 || !isApiRoute(canonicalPath(request.url))) return done();
    reply.headers(headers);
    sendError(reply, "not_found");
  });

  /**
   * The gateway session of any request, /api or not (pages, /oidc, /legacy_login/callback): read from the cookie
   * on the first call and memoised, so a page or asset that never asks pays no database read (issue #9). Outside
   * /api it only reads: no cookie is set and nothing changes, so no CSRF token is needed.
   */
  function readSession(request: FastifyRequest): Promise<SessionWithUser | undefined> {
    if (request.session) return Promise.resolve(request.session.user);
    if (!request.sessionRead) {
      const presented = request.cookies[cookieName];
      request.sessionRead = isSessionToken(presented) ? findSession(db, presented) : Promise.resolve(undefined);
    }
    return request.sessionRead;
  }
  app.decorate("readSession", readSession);

  /** The browser's signed-in session token, on /api (the guard read it) or on any other path (read now). */
  async function signedInToken(request: FastifyRequest): Promise<string | undefined> {
    if (request.session) return request.session.user ? request.session.token : undefined;
    return (await readSession(request)) ? request.cookies[cookieName] : undefined;
  }

  /** Hands the session's CSRF token to the client (GET /api/session, and whenever the session changes). */
  function sendCsrfToken(request: FastifyRequest, reply: FastifyReply) {
    reply.header(CSRF_HEADER, csrfToken(config.sessionSecret, request.session.token));
  }
  app.decorate("sendCsrfToken", sendCsrfToken);

  function setCookie(reply: FastifyReply, token: string) {
    reply.setCookie(cookieName, token, {
      path: "/",
      httpOnly: true,
      sameSite: "lax",
      secure,
      maxAge: SESSION_ABSOLUTE_MS / 1000,
    });
  }

  /**
   * Hands the browser a session the sign-in core opened (signin/attempt.ts) or a redeemed link code carried here
   * (sessions/links.ts): its cookie and CSRF token. A sign-in (`signedInNow`) on a brand host also makes the next
   * page load ask the central host again (issue #10 §5), so the sign-in reaches every host.
   */
  function adoptSession(request: FastifyRequest, reply: FastifyReply, token: string, signedInNow = false) {
    request.session = { token, user: undefined };
    setCookie(reply, token);
    sendCsrfToken(request, reply);
    if (signedInNow && isLinkedBrandHost(config, request.hostname)) {
      reply.clearCookie(SESSION_LINK_MARKER_COOKIE, { path: "/" });
    }
  }
  app.decorate("adoptSession", adoptSession);

  /**
   * A proof of the account was given in this browser (a sign-in, finished or owing a step): the browser is trusted
   * for that account from now on with a fresh device cookie, and keeps its own allowance of wrong passwords
   * (docs/decisions.md "Sign-in throttling"). A browser that already holds a good cookie for the account keeps its
   * device id (issue #26: a remembered browser stays remembered across sign-ins). Answers the device id.
   */
  /** The device id the browser's cookie vouches for under this account, or a fresh one (the cookie it will get). */
  const deviceIdOf = (request: FastifyRequest, address: string): string => {
    const presented = request.cookies[deviceCookie];
    return (presented && trustedDevice(config.sessionSecret, presented, address)) || newDeviceId();
  };
  app.decorate("deviceIdOf", deviceIdOf);

  app.decorate("trustBrowser", (reply: FastifyReply, address: string, request?: FastifyRequest, id?: string) => {
    const kept = id ?? (request ? deviceIdOf(request, address) : undefined);
    const cookie = issueDeviceCookie(config.sessionSecret, address, Date.now(), kept);
    // Strict: only our own pages ever send it; long-lived: it names the browser, not a session.
    reply.setCookie(deviceCookie, cookie, {
      path: "/",
      httpOnly: true,
      sameSite: "strict",
      secure,
      maxAge: DEVICE_TRUST_MS / 1000,
    });
    return cookie.split(".")[1] as string;
  });

  /**
   * The browser a sign-in happens in (signin/attempt.ts): its cookie's token, its signed-in session, its client, and
   * its device cookie (checked against the account by the core: issue #26's remembered browsers).
   */
  app.decorate("browserOf", async (request: FastifyRequest): Promise<Browser> => {
    const cookie = request.cookies[deviceCookie];
    return {
      token: request.session.token,
      signedIn: await signedInToken(request),
      client: clientMeta(request),
      ...(cookie ? { device: { cookie, secret: config.sessionSecret } } : {}),
    };
  });

  /** The browser's unfinished sign-in (issue #24), bound to its cookie's token. */
  app.decorate("attemptOf", (request: FastifyRequest) => findAttempt(db, request.session.token));
  app.decorate("hasFreshProof", async (request: FastifyRequest) => {
    const { user } = request.session;
    return user !== undefined && (await isFresh(db, user));
  });

  /** Hears every end of a gateway session (the provider's back-channel logout hooks in here); failures are logged. */
  app.decorate("onSessionsEnded", (listener: SessionsEndedListener) =>
    onSessionsEnded(db, async (event) => {
      try {
        await listener(event);
      } catch (err) {
        app.log.error({ err, reason: event.reason }, "a listener of ended sessions failed");
      }
    }),
  );

  /** What a password check needs to know about the request: its device cookie, and who asked from where. */
  app.decorate("attemptSource", (request: FastifyRequest): AttemptSource => {
    const cookie = request.cookies[deviceCookie];
    return {
      ...(cookie ? { device: { cookie, secret: config.sessionSecret } } : {}),
      client: clientMeta(request),
    };
  });

  /** The browser's signed-in session token, if any (the one a new session replaces). */
  app.decorate("signedInToken", signedInToken);

  /**
   * Ends the server session and any unfinished sign-in, and hands out a fresh anonymous token (ASVS 7.4.1), on /api
   * or any other path.
   */
  app.decorate("signOut", async (request: FastifyRequest, reply: FastifyReply) => {
    const current = await signedInToken(request);
    if (current) await closeSession(db, current, "sign_out");
    const presented = request.cookies[cookieName];
    if (isSessionToken(presented)) await cancelAttempt(db, presented);
    const token = newSessionToken();
    request.session = { token, user: undefined };
    setCookie(reply, token);
    sendCsrfToken(request, reply);
  });
});

declare module "fastify" {
  interface FastifyInstance {
    browserOf(request: FastifyRequest): Promise<Browser>;
    attemptOf(request: FastifyRequest): Promise<SignInAttemptRow | undefined>;
    /** Whether the request's session has a proof recent enough for a sensitive call (issue #26 step-up). */
    hasFreshProof(request: FastifyRequest): Promise<boolean>;
    readSession(request: FastifyRequest): Promise<SessionWithUser | undefined>;
    onSessionsEnded(listener: SessionsEndedListener): () => void;
    attemptSource(request: FastifyRequest): AttemptSource;
    signOut(request: FastifyRequest, reply: FastifyReply): Promise<void>;
    adoptSession(request: FastifyRequest, reply: FastifyReply, token: string, signedInNow?: boolean): void;
    /** Sets the device cookie for the account (keeping the browser's device id, or `id`); answers its device id. */
    trustBrowser(reply: FastifyReply, address: string, request?: FastifyRequest, id?: string): string;
    deviceIdOf(request: FastifyRequest, address: string): string;
    signedInToken(request: FastifyRequest): Promise<string | undefined>;
    sendCsrfToken(request: FastifyRequest, reply: FastifyReply): void;
  }
}

/**
 * The account an owed step's call is made for: the signed-in session's, or the sign-in attempt's that owes the step
 * (http/mount.ts let it through); 401 otherwise.
 */
export function accountIdOf(request: FastifyRequest): string {
  return request.attempt?.user_id ?? signedIn(request).user_id;
}

/** The signed-in session of an account call (mounted with `session: "required"`, so it is there); 401 otherwise. */
export function signedIn(request: FastifyRequest): SessionWithUser {
  const session = request.session.user;
  if (!session) throw new ApiError("not_authenticated");
  return session;
}

function headerOf(request: FastifyRequest): string | undefined {
  const value = request.headers[CSRF_HEADER];
  return Array.isArray(value) ? value[0] : value;
}

export function clientMeta(request: FastifyRequest): ClientMeta {
  const agent = request.headers["user-agent"];
  return {
    ip: request.ip,
    userAgent: typeof agent === "string" ? agent : "",
    host: request.hostname,
    country: request.country,
  };
}

/** Who did it and from where, for the audit trail. */
export function auditContext(request: FastifyRequest, userId: string | null) {
  const meta = clientMeta(request);
  return { userId, ip: meta.ip, userAgent: meta.userAgent, country: meta.country };
}
