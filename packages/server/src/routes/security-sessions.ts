import { securityApi } from "@gatehouse/contract/security";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { audit } from "../audit/audit.ts";
import { ApiError } from "../http/errors.ts";
import { mount } from "../http/mount.ts";
import { auditContext, signedIn } from "../http/session.ts";
import { endOtherSignIns, endSignIn, listSignIns, type SessionsViewer } from "../security/sessions.ts";
import type { Services } from "../services.ts";

/**
 * Issue #27, the security page's sessions: the person's sign-ins, ending one, and "Sign out everywhere else". Behind
 * the session, the CSRF check (http/session.ts) and the rate limits of their declarations, like every account call.
 */
export async function securitySessionRoutes(app: FastifyInstance, { services }: { services: Services }) {
  const { db, config } = services;

  const viewerOf = (request: FastifyRequest): SessionsViewer => {
    const session = signedIn(request);
    return {
      userId: session.user_id,
      sessionId: session.id,
      signInId: session.sign_in_id,
      sessionSecret: config.sessionSecret,
    };
  };

  mount(app, securityApi.securitySessions, async (request) => {
    const page = await listSignIns(db, viewerOf(request), { idps: config.idps, cursor: request.query.cursor });
    if (!page)
      throw new ApiError("invalid_request", { fields: [{ field: "cursor", message: "errors.invalid_request" }] });
    return page;
  });

  mount(app, securityApi.securitySessionEnd, async (request, reply) => {
    const viewer = viewerOf(request);
    const outcome = await endSignIn(db, viewer, request.params.id);
    // Another person's entry, an unknown one and an ended one: the same 404 (ASVS 8.2.2).
    if (outcome === "not_found") throw new ApiError("not_found");
    // Ending the browser's own sign-in is signing out: the cookie turns anonymous, as /account/logout does.
    if (outcome === "current") await app.signOut(request, reply);
    await audit(db, "session_ended", auditContext(request, viewer.userId));
    return {};
  });

  mount(app, securityApi.securitySessionsEndOthers, async (request) => {
    const viewer = viewerOf(request);
    const ended = await endOtherSignIns(db, viewer);
    await audit(db, "signed_out_elsewhere", auditContext(request, viewer.userId));
    return { ended };
  });
}
