import { api } from "@gatehouse/contract";
import type { FastifyInstance } from "fastify";
import { activateAccount, resendActivation } from "../accounts/activation.ts";
import { startSignupTrial } from "../accounts/trials.ts";
import { originOf } from "../http/client.ts";
import { ApiError } from "../http/errors.ts";
import { mount } from "../http/mount.ts";
import type { Services } from "../services.ts";

/** Activation by the mailed code, with or without signing in, and resending the link (spec §7). */
export async function activationRoutes(app: FastifyInstance, { services }: { services: Services }) {
  const { db } = services;

  const trialDefaults = { productCode: services.config.trialProductCode, brand: services.config.brands.defaultBrand };

  mount(app, api.activate, async (request) => {
    const outcome = await activateAccount(db, request.body.activationCode, request.session.token);
    if (!outcome.ok) throw new ApiError(outcome.refusal, { temporary: false });
    await startSignupTrial(db, outcome.user, trialDefaults);
    return {};
  });

  mount(app, api.activationLogin, async (request, reply) => {
    const outcome = await activateAccount(db, request.body.activationCode, request.session.token);
    if (!outcome.ok) throw new ApiError(outcome.refusal, { temporary: false });
    // The trial starts with the proven address, before the session: a failure there leaves nobody half signed in.
    const trial = await startSignupTrial(db, outcome.user, trialDefaults);
    // The mailed code proved the address; a disabled account stays refused (accounts/account-status.ts).
    await app.signIn(request, reply, { user: outcome.user, method: "activation" });
    return { Trial: trial };
  });

  // The same answer whether or not a pending account has the address (no account enumeration).
  for (const endpoint of [api.resendActivation, api.trialResendActivation]) {
    mount(app, endpoint, async (request) => {
      if (await resendActivation(db, request.body.email, originOf(request, services, request.body.returnTo)))
        services.mail.kick();
      return {};
    });
  }
}
