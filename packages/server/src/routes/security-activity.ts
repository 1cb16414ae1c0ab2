import { securityApi } from "@gatehouse/contract/security";
import type { FastifyInstance } from "fastify";
import { ApiError } from "../http/errors.ts";
import { mount } from "../http/mount.ts";
import { signedIn } from "../http/session.ts";
import { activityPage, BadCursor } from "../security/activity.ts";
import type { Services } from "../services.ts";

/** Issue #27, the security page's "What happened": the signed-in person's own security activity. */
export async function securityActivityRoutes(app: FastifyInstance, { services }: { services: Services }) {
  const { db, config } = services;

  // Only ever the session's own account (ASVS 8.2.2: no id in the request chooses whose events are read).
  mount(app, securityApi.securityActivity, async (request) => {
    try {
      return await activityPage(db, config, signedIn(request).user_id, request.query.cursor);
    } catch (error) {
      if (error instanceof BadCursor)
        throw new ApiError("invalid_request", { fields: [{ field: "cursor", message: "errors.invalid_request" }] });
      throw error;
    }
  });
}
