import { api, RATE_LIMITS } from "@gatehouse/contract";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { activateAccount, resendActivation } from "../accounts/activation.ts";
import { ApiError } from "../http/errors.ts";
import { limit } from "../http/rate-limit.ts";
import type { Services } from "../services.ts";
import { originOf } from "./register.ts";

/** Activation by the mailed code, with or without signing in, and resending the link (spec §7). */
export const activationRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  const { db } = services;

  app.post(
    `/api${api.activate.path}`,
    { schema: { body: api.activate.body }, config: limit(RATE_LIMITS.activate) },
    async (request) => {
      const outcome = await activateAccount(db, request.body.activationCode);
      if (!outcome.ok) throw new ApiError(outcome.refusal, { temporary: false });
      return {};
    },
  );

  app.post(
    `/api${api.activationLogin.path}`,
    { schema: { body: api.activationLogin.body }, config: limit(RATE_LIMITS.activate) },
    async (request, reply) => {
      const outcome = await activateAccount(db, request.body.activationCode);
      if (!outcome.ok) throw new ApiError(outcome.refusal, { temporary: false });
      if (outcome.user.status !== "active") throw new ApiError("user_disabled");
      await app.signIn(request, reply, outcome.user);
      return {};
    },
  );

  // The same answer whether or not a pending account has the address (no account enumeration).
  for (const endpoint of [api.resendActivation, api.trialResendActivation]) {
    app.post(
      `/api${endpoint.path}`,
      { schema: { body: endpoint.body }, config: limit(RATE_LIMITS.resendActivation) },
      async (request) => {
        if (await resendActivation(db, request.body.email, originOf(request, services, request.body.returnTo)))
          services.mail.kick();
        return {};
      },
    );
  }
};
