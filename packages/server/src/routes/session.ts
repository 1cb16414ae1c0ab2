import { api } from "@gatehouse/contract";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Config } from "../config.ts";
import { visitorCountry } from "../http/client.ts";
import { ApiError } from "../http/errors.ts";

/** GET /api/session (spec §7): the signed-in user, or 401 with the error object; both carry X-CSRF-Token. */
export const sessionRoutes: FastifyPluginAsyncZod<{ config: Config }> = async (app, { config }) => {
  app.get(`/api${api.session.path}`, async (request) => {
    const session = request.session.user;
    if (!session) throw new ApiError("not_authenticated");
    return {
      ID: session.id,
      UserGUID: session.user_id,
      Email: session.email,
      FirstName: session.first_name,
      LastName: session.last_name,
      Location: visitorCountry(request, config.countryHeader),
      // Gatehouse is itself the gateway: a session here needs no further linking (docs/decisions.md).
      Linked: true,
    };
  });
};
