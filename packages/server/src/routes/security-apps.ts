import { securityApi } from "@gatehouse/contract/security";
import type { FastifyInstance } from "fastify";
import { ApiError } from "../http/errors.ts";
import { mount } from "../http/mount.ts";
import { auditContext, signedIn } from "../http/session.ts";
import { appsOf, removeApp } from "../security/apps.ts";
import type { Services } from "../services.ts";

/**
 * Issue #27, the security page's "Apps with access": the person's grants, and removing one's access. Behind the
 * session and its CSRF token (http/session.ts) and the security rate limits, like every account call. Another
 * person's grant answers 404 as an unknown one does (ASVS 8.2.2).
 */
export async function securityAppRoutes(app: FastifyInstance, { services }: { services: Services }) {
  const { db, config } = services;

  mount(app, securityApi.securityApps, async (request) => {
    const page = await appsOf(db, config.clients, signedIn(request).user_id, request.query.cursor);
    if (page === "invalid_cursor") throw new ApiError("invalid_request");
    return page;
  });

  mount(app, securityApi.securityAppRevoke, async (request) => {
    const userId = signedIn(request).user_id;
    const removed = await removeApp(db, config.clients, userId, request.params.id, auditContext(request, userId));
    if (!removed) throw new ApiError("not_found");
    // Its back-channel logouts were queued with the removal: the worker sends them now.
    if (removed.sids.length > 0) services.jobs.kick();
    return {};
  });
}
