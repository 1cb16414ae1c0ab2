import { api, LICENCE_RESOURCE, routeUrl } from "@gatehouse/contract";
import type { FastifyInstance, FastifyReply } from "fastify";
import { decodeJwt } from "jose";
import { currentUser } from "../http/current-user.ts";
import { ApiError } from "../http/errors.ts";
import { mount } from "../http/mount.ts";
import { signedIn } from "../http/session.ts";
import { mintLicenceToken } from "../oidc/api-token.ts";
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
 * Fetch Metadata (W3C): `same-origin` is a navigation from our own pages; none (an older browser) or `none` is an
 * address the person typed or bookmarked. `same-site` (another host under the same registrable domain, e.g. an old
 * brand site) and `cross-site` are refused.
 */
function mayMint(secFetchSite: string | string[] | undefined): boolean {
  return secFetchSite === undefined || secFetchSite === "same-origin" || secFetchSite === "none";
}

/**
 * `GET /api/studio/complete` (issue #13): where the studio sign-in (`/trimble/login`, through the social flow)
 * continues. A person who may sign in elsewhere gets an access token for the brands' API, handed to the completion
 * page, which activates the licence in their local helper; a person owing a step goes through sign-in (which makes
 * them do it, then comes back here); a visitor goes back to the studio sign-in.
 */
export async function studioRoutes(app: FastifyInstance, { services }: { services: Services }) {
  const { provider } = services.oidc;

  mount(app, api.studioComplete, async (request, reply) => {
    // Minted only for a navigation the person made on our own pages (or typed): another site's link or form must not
    // put a token into their browser's address bar, to be handed to their helper (login CSRF, ASVS 3.5.x). A sibling
    // host of the same site is another site here too (issue #24 §2).
    if (!mayMint(request.headers["sec-fetch-site"])) {
      return noTrace(reply).redirect(routeUrl("SKETCHUP_LOGIN"), 302);
    }
    const session = await app.readSession(request);
    // Every session is a finished sign-in (issue #24): a person who owed a step has none until it is done.
    if (!session) return noTrace(reply).redirect(routeUrl("SKETCHUP_LOGIN"), 302);
    let minted: Awaited<ReturnType<typeof mintLicenceToken>>;
    try {
      minted = await mintLicenceToken(provider, session.user_id);
    } catch (err) {
      request.log.error({ err }, "studio token not minted");
    }
    // Without a token the page says "Failed to obtain access token" (spec §8) with the support contact.
    if (!minted) return noTrace(reply).redirect(routeUrl("SKETCHUP_LOGIN_COMPLETE"), 302);
    return noTrace(reply).redirect(routeUrl("SKETCHUP_LOGIN_COMPLETE", { [TOKEN_PARAM]: minted.token }), 302);
  });

  // The completion page's check before it activates anything: the token it was handed must be the signed-in
  // person's. The signature is the helper's to check (a forged token fails there); here only whose it says it is
  // matters, so a link made by someone else cannot activate their account's licence in this person's helper.
  mount(app, api.studioAccount, async (request) => {
    const session = signedIn(request);
    const bearer = /^Bearer ([\w.-]{1,4096})$/u.exec(request.headers.authorization ?? "")?.[1];
    let claims: ReturnType<typeof decodeJwt> | undefined;
    try {
      claims = bearer ? decodeJwt(bearer) : undefined;
    } catch {
      claims = undefined;
    }
    const audience = [claims?.aud ?? []].flat();
    if (!claims || claims.sub !== session.user_id || !audience.includes(LICENCE_RESOURCE)) {
      throw new ApiError("studio_token_mismatch");
    }
    const user = await currentUser(services.db, request);
    return { name: `${user.first_name} ${user.last_name}`.trim(), email: user.email };
  });
}
