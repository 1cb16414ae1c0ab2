import { api, routeUrl } from "@gatehouse/contract";
import type { FastifyInstance, FastifyReply } from "fastify";
import { maySignInElsewhere } from "../accounts/finish-sign-in.ts";
import { mount } from "../http/mount.ts";
import { mintApiToken } from "../oidc/api-token.ts";
import type { Services } from "../services.ts";

/** The parameter the completion page reads its token from (spec §2 SKETCHUP_LOGIN_COMPLETE). */
const TOKEN_PARAM = "access_token";

/**
 * The answer's headers: the Location carries a live token, so no Referer may leave with it and nothing may cache
 * the redirect (ASVS 14.2.1, 14.3.2). The request log masks `access_token` wherever it appears in a query.
 */
function noTrace(reply: FastifyReply): FastifyReply {
  return reply.header("referrer-policy", "no-referrer").header("cache-control", "no-store");
}

/**
 * `GET /api/studio/complete` (issue #13): where the studio sign-in (`/trimble/login`, through the social flow)
 * continues. A person who may sign in elsewhere gets an access token for the brands' API, handed to the completion
 * page, which activates the licence in their local helper; a person owing a step goes through sign-in (which makes
 * them do it, then comes back here); a visitor goes back to the studio sign-in.
 */
export async function studioRoutes(app: FastifyInstance, { services }: { services: Services }) {
  const { provider } = services.oidc;
  const selfPath = `/api${api.studioComplete.path}`;

  mount(app, api.studioComplete, async (request, reply) => {
    const session = await app.readSession(request);
    if (session?.pending_step) {
      return noTrace(reply).redirect(routeUrl("LOGIN", { return_to: selfPath }), 302);
    }
    if (!maySignInElsewhere(session)) return noTrace(reply).redirect(routeUrl("SKETCHUP_LOGIN"), 302);
    let minted: Awaited<ReturnType<typeof mintApiToken>>;
    try {
      minted = await mintApiToken(provider, session.user_id);
    } catch (err) {
      request.log.error({ err }, "studio token not minted");
    }
    // Without a token the page says "Failed to obtain access token" (spec §8) with the support contact.
    if (!minted) return noTrace(reply).redirect(routeUrl("SKETCHUP_LOGIN_COMPLETE"), 302);
    return noTrace(reply).redirect(routeUrl("SKETCHUP_LOGIN_COMPLETE", { [TOKEN_PARAM]: minted.token }), 302);
  });
}
