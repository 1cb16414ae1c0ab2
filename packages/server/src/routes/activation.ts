import { api, isBrandId } from "@gatehouse/contract";
import type { FastifyInstance } from "fastify";
import { activateAccount, resendActivation } from "../accounts/activation.ts";
import { signupTrial, startTrial } from "../accounts/trials.ts";
import { ApiError } from "../http/errors.ts";
import { mount } from "../http/mount.ts";
import type { Services } from "../services.ts";
import type { UserRow } from "../store/schema.ts";
import { originOf } from "./register.ts";

/** Activation by the mailed code, with or without signing in, and resending the link (spec §7). */
export async function activationRoutes(app: FastifyInstance, { services }: { services: Services }) {
  const { db } = services;

  /** The trial a trial sign-up asked for starts when its address is proven (issue #12), whichever page activates. */
  const startSignupTrial = async (user: UserRow) => {
    const trial = signupTrial(user);
    if (!trial || user.status !== "active") return null;
    const productCode = trial.productCode ?? services.config.trialProductCode;
    const brand = isBrandId(user.brand) ? user.brand : services.config.brands.defaultBrand;
    const started = await startTrial(db, user, { productCode, brand });
    return started.ok ? started.trial : null;
  };

  mount(app, api.activate, async (request) => {
    const outcome = await activateAccount(db, request.body.activationCode, request.session.token);
    if (!outcome.ok) throw new ApiError(outcome.refusal, { temporary: false });
    await startSignupTrial(outcome.user);
    return {};
  });

  mount(app, api.activationLogin, async (request, reply) => {
    const outcome = await activateAccount(db, request.body.activationCode, request.session.token);
    if (!outcome.ok) throw new ApiError(outcome.refusal, { temporary: false });
    // The mailed code proved the address; a disabled account stays refused (accounts/account-status.ts).
    await app.signIn(request, reply, { user: outcome.user, method: "activation" });
    return { Trial: await startSignupTrial(outcome.user) };
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
