import { randomUUID } from "node:crypto";
import { api, checkReturnTo, type ErrorPageCode, routeUrl, withTokenFragment } from "@gatehouse/contract";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { mount } from "../http/mount.ts";
import { mintLegacyToken } from "../oidc/legacy.ts";
import type { Services } from "../services.ts";
import { legacySites } from "../settings/clients.ts";

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
 * `GET /api/legacy_token?continue=…` (spec §7, issue #10 §3): a signed-in person goes on to `continue` — a legacy
 * site's address, its host on the return allow-list and its origin a legacy client's, matched exactly (ASVS
 * 5.1.5) — with a token for that site in the fragment. A visitor, or an address that may not have a token, lands
 * on the error page; a person who owes a step is sent through the login page, whose legacy flow makes them do it.
 */
export async function legacyRoutes(app: FastifyInstance, { services }: { services: Services }) {
  const { config } = services;
  const { provider } = services.oidc;
  const policy = { allowedHosts: config.brands.returnHosts, selfOrigin: config.publicUrl.origin };

  mount(app, api.legacyToken, async (request, reply) => {
    const destination = checkReturnTo(request.query.continue, policy);
    const origin = destination ? new URL(destination).origin : undefined;
    if (!destination || !origin || !legacySites(config.clients).has(origin)) {
      return toErrorPage(request, reply, "legacy_token_error", "legacy token refused: continue is not a legacy site");
    }
    const session = await app.readSession(request);
    if (!session) {
      return toErrorPage(request, reply, "legacy_invalid_authentication", "legacy token refused: not signed in");
    }
    const minted = await mintLegacyToken(provider, config, session.user_id, origin);
    if (!minted) return toErrorPage(request, reply, "legacy_token_error", "legacy token refused: no web client");
    return noTrace(reply).redirect(withTokenFragment(destination, minted.token, minted.expiresIn), 302);
  });
}
