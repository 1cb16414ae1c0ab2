import { randomUUID } from "node:crypto";
import { api, checkReturnTo, type ErrorPageCode, routeUrl, withTokenFragment } from "@gatehouse/contract";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { pageLanguage } from "../http/client.ts";
import { sendContinuePage } from "../http/legacy-page.ts";
import { mount } from "../http/mount.ts";
import { mintLegacyToken } from "../oidc/legacy.ts";
import type { Services } from "../services.ts";
import { legacyAddress } from "../settings/clients.ts";

/**
 * The answer's headers: a token travels in the Location's fragment, which a browser never sends in a Referer or to
 * a server, and the redirect itself must not be cached (ASVS 14.2.1, 14.3.2).
 */
function noTrace(reply: FastifyReply): FastifyReply {
  return reply.header("referrer-policy", "no-referrer").header("cache-control", "no-store");
}

/** A refused request lands on our error page with its code and a reference that is also in the log (ASVS 16.5.1). */
function toErrorPage(request: FastifyRequest, reply: FastifyReply, code: ErrorPageCode, why: string): FastifyReply {
  const guid = randomUUID();
  request.log.info({ guid, code }, why);
  return noTrace(reply).redirect(routeUrl("ERROR", { error_code: code, error_id: guid }), 302);
}

/**
 * `GET /api/legacy_token?continue=…` (spec §7, issue #10 §3, issue #24 §2): a signed-in person goes on to
 * `continue` — on the return allow-list, and exactly one of a legacy client's redirect URIs (RFC 9700 §2.1, ASVS
 * 5.1.5: no other path of the site, whose open redirect would pass the token on) — with a token for that site in
 * the fragment. A visitor, or an address that may not have a token, lands on the error page; a navigation another
 * site started gets a page whose button, clicked on our origin, asks again; a person who owes a step is sent
 * through the login page, whose legacy flow makes them do it.
 */
export async function legacyRoutes(app: FastifyInstance, { services }: { services: Services }) {
  const { config } = services;
  const { provider } = services.oidc;
  const policy = { allowedHosts: config.brands.returnHosts, selfOrigin: config.publicUrl.origin };
  const selfPath = `/api${api.legacyToken.path}`;

  mount(app, api.legacyToken, async (request, reply) => {
    const destination = checkReturnTo(request.query.continue, policy);
    const site = destination ? legacyAddress(config, destination) : undefined;
    if (!destination || !site) {
      return toErrorPage(request, reply, "legacy_token_error", "legacy token refused: continue is not registered");
    }
    const session = await app.readSession(request);
    if (!session) {
      return toErrorPage(request, reply, "legacy_invalid_authentication", "legacy token refused: not signed in");
    }
    // Another site's link or form never makes us hand a token out by itself (issue #24 §2; login CSRF, ASVS 3.5.x):
    // the person confirms on our page, whose button is a same-origin navigation.
    if (request.headers["sec-fetch-site"] === "cross-site") {
      return sendContinuePage(reply, {
        language: pageLanguage(request, config, destination),
        site: site.name,
        action: selfPath,
        address: destination,
      });
    }
    const minted = await mintLegacyToken(provider, config, session.user_id, destination);
    if (!minted) return toErrorPage(request, reply, "legacy_token_error", "legacy token refused: no web client");
    return noTrace(reply).redirect(withTokenFragment(destination, minted.token, minted.expiresIn), 302);
  });
}
