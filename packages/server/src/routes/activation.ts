import { api, BRANDS, trialAddress } from "@gatehouse/contract";
import type { FastifyInstance } from "fastify";
import { activateAccount, resendActivation } from "../accounts/activation.ts";
import { startSignupTrial } from "../accounts/trials.ts";
import { originOf, requestBrand } from "../http/client.ts";
import { ApiError } from "../http/errors.ts";
import { mount } from "../http/mount.ts";
import { destinationOf, landingOf, proven, signInBrowser } from "../http/sign-in.ts";
import type { Services } from "../services.ts";
import { verifyActivation } from "../signin/mailed-code.ts";

/** Activation by the mailed code, with or without signing in, and resending the link (spec §7). */
export async function activationRoutes(app: FastifyInstance, { services }: { services: Services }) {
  const { db, config } = services;

  const trialDefaults = { productCode: config.trialProductCode, brand: config.brands.defaultBrand };

  mount(app, api.activate, async (request) => {
    const outcome = await activateAccount(db, request.body.activationCode, request.session.token);
    if (!outcome.ok) throw new ApiError(outcome.refusal, { temporary: false });
    await startSignupTrial(db, outcome.user, trialDefaults);
    return {};
  });

  mount(app, api.activationLogin, async (request, reply) => {
    const proof = proven(await verifyActivation(db, request.body.activationCode, request.session.token));
    // The trial starts with the proven address, before the sign-in: a failure there leaves nobody half signed in.
    const trial = await startSignupTrial(db, proof.user, trialDefaults);
    // A trial's sign-up without a product site's return address continues to its trial (a new account).
    const landing = trial
      ? trialAddress(BRANDS[requestBrand(request, config)], { isNewAccount: true, productCode: trial.productCode })
      : landingOf(request, config);
    const destination = destinationOf(request, config, request.body.returnTo, landing);
    // A disabled account stays refused (signin/attempt.ts checks the account's state).
    const next = await signInBrowser(app, db, config, { request, reply }, proof, destination);
    return { Trial: trial, next };
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
