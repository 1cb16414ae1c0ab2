import {
  api,
  checkReturnTo,
  SESSION_LINK_CODE_TTL_MS,
  SESSION_LINK_MARKER_COOKIE,
  SESSION_LINK_MARKER_TTL_S,
  SESSION_LINK_STATE_COOKIE,
} from "@gatehouse/contract";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { sendError } from "../http/errors.ts";
import { mount } from "../http/mount.ts";
import { clientMeta } from "../http/session.ts";
import type { Services } from "../services.ts";
import { issueLinkCode, randomValue, redeemLinkCode } from "../sessions/links.ts";
import { isCentralHost, originOfHost, siteOrigins } from "../settings/sites.ts";

const LINK_PATH = "/api/session/link";
const STATE_SHAPE = /^[A-Za-z0-9_-]{43}$/u;
const SECOND_MS = 1000;

/**
 * Linked sessions across brand hosts (issue #10 §5; sessions/links.ts for the round trip and its guarantees). Three
 * browser navigations, each answered by a redirect. Origins come from the brands file (`siteOrigins`), never from
 * a request's Host header; the round trip always passes through the central host (PUBLIC_URL), so every brand host
 * links with it, and through it with each other.
 */
export async function sessionLinkRoutes(app: FastifyInstance, { services }: { services: Services }) {
  const { config, db } = services;
  const secure = config.publicUrl.protocol === "https:";
  const origins = new Set(siteOrigins(config));
  const central = config.publicUrl.origin;
  // Over https the state cookie is `__Host-` (Secure, this host only, path /): a sibling subdomain cannot plant a
  // state of its own choosing with a Domain cookie and so pair a victim's browser with an attacker's code
  // (cookie tossing, ASVS 3.3.x).
  const stateCookie = secure
    ? { name: `__Host-${SESSION_LINK_STATE_COOKIE}`, path: "/" }
    : { name: SESSION_LINK_STATE_COOKIE, path: LINK_PATH };

  /** This host's origin, and the other host's when it is one of ours, and one of the two is the central host. */
  function hosts(request: FastifyRequest, other: string) {
    const self = originOfHost(config, request.hostname);
    const valid = self !== undefined && origins.has(other) && other !== self && (self === central || other === central);
    return valid ? { self, other } : undefined;
  }

  /** The address to end on, checked as every return address is (ASVS 5.1.5): on `origin`, or an allowed host. */
  const allowedHosts = [...config.brands.returnHosts, ...config.brands.sites.map((site) => site.host)];
  function destination(returnTo: string, origin: string): string | undefined {
    return checkReturnTo(returnTo, { allowedHosts, selfOrigin: origin });
  }

  /** The code travels in this answer's Location only: nothing caches it and no Referer repeats it (ASVS 14.2.1). */
  const redirect = (reply: FastifyReply, location: string) =>
    reply.header("cache-control", "no-store").header("referrer-policy", "no-referrer").redirect(location, 302);

  /** After a round trip, this host does not ask again for a while: a visitor never loops (spec §4). */
  const markChecked = (reply: FastifyReply) =>
    reply.setCookie(SESSION_LINK_MARKER_COOKIE, "1", {
      path: "/",
      sameSite: "lax",
      secure,
      maxAge: SESSION_LINK_MARKER_TTL_S,
    });

  const off = (reply: FastifyReply) => sendError(reply, "not_found");

  // The receiving host starts: its own random state in its own cookie, then to the host that has the session.
  mount(app, api.sessionLinkStart, async (request, reply) => {
    if (!config.linkedSessions) return off(reply);
    const pair = hosts(request, request.query.from);
    const next = pair && destination(request.query.return_to, pair.self);
    if (!pair || !next) return sendError(reply, "invalid_request");
    const state = randomValue();
    reply.setCookie(stateCookie.name, state, {
      path: stateCookie.path,
      httpOnly: true,
      sameSite: "lax",
      secure,
      maxAge: SESSION_LINK_CODE_TTL_MS / SECOND_MS,
    });
    const give = new URL(`${LINK_PATH}/give`, pair.other);
    give.search = new URLSearchParams({ to: pair.self, state, return_to: next }).toString();
    return redirect(reply, give.href);
  });

  // The host that has the session gives a code for it, bound to the receiver's origin and state; without a
  // session it says so by sending no code.
  mount(app, api.sessionLinkGive, async (request, reply) => {
    if (!config.linkedSessions) return off(reply);
    const { to, state, return_to } = request.query;
    const pair = hosts(request, to);
    const next = pair && destination(return_to, to);
    if (!pair || !next || !STATE_SHAPE.test(state)) return sendError(reply, "invalid_request");
    const session = request.session.user;
    const redeem = new URL(`${LINK_PATH}/redeem`, to);
    const query = new URLSearchParams({ return_to: next, from: pair.self });
    if (session) query.set("code", await issueLinkCode(db, session, to, state));
    redeem.search = query.toString();
    markChecked(reply);
    return redirect(reply, redeem.href);
  });

  // The receiving host redeems the code server-side for a session of its own (sessions/links.ts).
  mount(app, api.sessionLinkRedeem, async (request, reply) => {
    if (!config.linkedSessions) return off(reply);
    const self = originOfHost(config, request.hostname);
    const next = self && destination(request.query.return_to, self);
    if (!self || !next) return sendError(reply, "invalid_request");
    const state = request.cookies[stateCookie.name];
    reply.clearCookie(stateCookie.name, { path: stateCookie.path, secure });
    const { code } = request.query;
    if (code) {
      const outcome = await redeemLinkCode(db, {
        code,
        origin: self,
        state,
        receiverIsCentral: isCentralHost(config, request.hostname),
        giverIsCentral: !isCentralHost(config, request.hostname),
        client: clientMeta(request),
        replacing: await app.signedInToken(request),
        current: request.session.user,
      });
      if (outcome.ok) {
        app.adoptSession(request, reply, outcome.token);
        return redirect(reply, next);
      }
      request.log.info({ refusal: outcome.refusal }, "session link refused");
      const giver = request.query.from;
      if (outcome.refusal === "older" && giver && giver !== self && origins.has(giver)) {
        // The central host keeps the newer sign-in: the brand host takes it, by a round trip it starts itself.
        const start = new URL(`${LINK_PATH}/start`, giver);
        start.search = new URLSearchParams({ from: self, return_to: next }).toString();
        return redirect(reply, start.href);
      }
    }
    markChecked(reply);
    return redirect(reply, next);
  });
}
