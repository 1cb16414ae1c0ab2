import { api, type ErrorCode, RATE_LIMITS, SERVICE_LOGIN_FINISH_PER_ACCOUNT } from "@gatehouse/contract";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Config } from "../config.ts";
import { requestBrand } from "../http/client.ts";
import { ApiError } from "../http/errors.ts";
import { limit, limitPerAccount } from "../http/rate-limit.ts";
import { clientMeta } from "../http/session.ts";
import { gatewayCookieName } from "../oidc/gateway-session.ts";
import {
  abortInteraction,
  describeInteraction,
  type FinishRefusal,
  finishInteraction,
  InteractionRefusal,
  type RawExchange,
} from "../oidc/interaction.ts";
import type { Services } from "../services.ts";

const REFUSAL_CODES: Record<FinishRefusal, ErrorCode> = {
  gone: "not_found",
  sign_in_required: "not_authenticated",
  consent_required: "consent_required",
};

async function refusingAs<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof InteractionRefusal) throw new ApiError(REFUSAL_CODES[error.refusal]);
    throw error;
  }
}

function exchangeOf(config: Config, request: FastifyRequest, reply: FastifyReply): RawExchange {
  return {
    req: request.raw,
    res: reply.raw,
    gatewayToken: request.cookies[gatewayCookieName(config)],
    hostBrand: requestBrand(request, config),
    client: clientMeta(request),
  };
}

/** The provider's interaction, as our SERVICE_LOGIN screen drives it (issue #10 §2; our additions to spec §7). */
export const serviceLoginRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  const { config, db } = services;
  const { provider } = services.oidc;

  app.get(`/api${api.serviceLogin.path}`, async (request, reply) =>
    refusingAs(() => describeInteraction(provider, db, exchangeOf(config, request, reply))),
  );

  app.post(
    `/api${api.serviceLoginFinish.path}`,
    // Issue #28: each finish may create a grant with an offline refresh token; bounded per address and per account.
    { schema: { body: api.serviceLoginFinish.body }, config: limit(RATE_LIMITS.serviceLoginFinish) },
    async (request, reply) => {
      const user = request.session.user;
      if (user) await limitPerAccount(db, reply, "serviceLoginFinish", user.user_id, SERVICE_LOGIN_FINISH_PER_ACCOUNT);
      return {
        redirect_to: await refusingAs(() =>
          finishInteraction(provider, db, exchangeOf(config, request, reply), request.body.consent),
        ),
      };
    },
  );

  app.post(`/api${api.serviceLoginAbort.path}`, async (request, reply) => ({
    redirect_to: await refusingAs(() => abortInteraction(provider, db, exchangeOf(config, request, reply))),
  }));
};
