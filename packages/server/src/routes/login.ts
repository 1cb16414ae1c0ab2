import { api, BRANDS, trialAddress } from "@gatehouse/contract";
import type { FastifyInstance } from "fastify";
import { isCorporateDomain } from "../accounts/registration.ts";
import { inTrialMode, startTrial, trialWouldBeRefused } from "../accounts/trials.ts";
import { requestBrand } from "../http/client.ts";
import { ApiError } from "../http/errors.ts";
import { mount } from "../http/mount.ts";
import { destinationOf, landingOf, proven, signInBrowser } from "../http/sign-in.ts";
import { withMfaDemand } from "../oidc/interaction.ts";
import type { Services } from "../services.ts";
import { owesSecondFactorNext } from "../signin/next.ts";
import { verifyPassword } from "../signin/password.ts";

/** Sign-in and sign-out (spec §7). */
export async function loginRoutes(app: FastifyInstance, { services }: { services: Services }) {
  const { db, config } = services;
  // Limited per client address, whatever the account (ASVS 6.3.1 / OWASP credential stuffing cheat sheet).
  mount(app, api.login, async (request, reply) => {
    const { email, password, returnTo } = request.body;
    const proof = proven(await verifyPassword(db, { email, password, source: app.attemptSource(request) }));
    // Trial mode (spec §7, issue #12): the sign-in starts the product's trial, once a product and account. One the
    // cap refuses is refused before anything opens, so the page's error never leaves the person signed in.
    const productCode = inTrialMode(request.body) ? (request.body.productCode ?? config.trialProductCode) : undefined;
    if (productCode && (await trialWouldBeRefused(db, proof.user.id, productCode)))
      throw new ApiError("trial_limit_reached");
    const brand = requestBrand(request, config);
    // Spec §4: in trial mode, without a product site's return address, the trial's address (not a new account).
    const landing = productCode
      ? trialAddress(BRANDS[brand], { isNewAccount: false, productCode })
      : landingOf(request, config);
    const next = await signInBrowser(
      app,
      db,
      config,
      { request, reply },
      proof,
      // Issue #26: a site demanding a second factor is not signed in through a remembered browser's skip.
      await withMfaDemand(
        services.oidc.provider,
        { req: request.raw, res: reply.raw },
        {
          ...destinationOf(request, config, returnTo, landing),
          ...(productCode ? { trial: { productCode, brand } } : {}),
        },
      ),
    );
    // Issue #26: the password alone does nothing more to an account with a second factor: the trial starts, and the
    // steps it owes are told, once the factor is given (signin/attempt.ts).
    const whole = !owesSecondFactorNext(next);
    if (productCode && whole) await startTrial(db, proof.user, { productCode, brand });
    // Spec §7's flags, read from the account as the core read the steps it owes; `next` says where to go.
    return {
      RequiredPasswordUpdate: whole && proof.user.required_password_update === 1,
      RequiredProfileUpdate: whole && proof.user.required_profile_update === 1,
      next,
    };
  });

  // Spec §7 login modes: decided by the address's domain alone, so the answer says nothing about accounts.
  mount(app, api.loginModes, async (request) => {
    const oidc = isCorporateDomain(request.body.username, config.corporateDomains);
    return { oidc, password: !oidc };
  });

  mount(app, api.logout, async (request, reply) => {
    await app.signOut(request, reply);
    return {};
  });
}
