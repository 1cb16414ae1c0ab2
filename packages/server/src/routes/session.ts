import { api } from "@gatehouse/contract";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Config } from "../config.ts";
import { visitorCountry } from "../http/client.ts";
import { sendError } from "../http/errors.ts";

/** GET /api/session (spec §7): the signed-in user, or 401 with the error object; both carry X-CSRF-Token. */
export const sessionRoutes: FastifyPluginAsyncZod<{ config: Config }> = async (app, { config }) => {
  app.get(`/api${api.session.path}`, async (request, reply) => {
    app.sendCsrfToken(request, reply);
    const session = request.session.user;
    // Answered, not thrown: a visitor's session check is as common as a signed-in one and needs no stack trace.
    if (!session) return sendError(reply, "not_authenticated");
    return {
      ID: session.id,
      UserGUID: session.user_id,
      Email: session.email,
      FirstName: session.first_name,
      LastName: session.last_name,
      Location: visitorCountry(request, config),
      // Gatehouse is itself the gateway: a session here needs no further linking (docs/decisions.md).
      Linked: true,
    };
  });
};
