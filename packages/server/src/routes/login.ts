import { api } from "@gatehouse/contract";
import type { FastifyInstance } from "fastify";
import { loginAnswer } from "../accounts/finish-sign-in.ts";
import { isCorporateDomain } from "../accounts/registration.ts";
import { signInWithPassword } from "../accounts/sign-in.ts";
import { inTrialMode, startTrial, trialWouldBeRefused } from "../accounts/trials.ts";
import { audit } from "../audit/audit.ts";
import { requestBrand } from "../http/client.ts";
import { ApiError } from "../http/errors.ts";
import { mount } from "../http/mount.ts";
import { auditContext } from "../http/session.ts";
import { counts } from "../metrics/counts.ts";
import type { Services } from "../services.ts";

/** Sign-in and sign-out (spec §7). */
export async function loginRoutes(app: FastifyInstance, { services }: { services: Services }) {
  const { db, config } = services;
  // Limited per client address, whatever the account (ASVS 6.3.1 / OWASP credential stuffing cheat sheet).
  mount(app, api.login, async (request, reply) => {
    const outcome = await signInWithPassword(
      db,
      request.body.email,
      request.body.password,
      Date.now(),
      app.attemptSource(request),
    );
    if (!outcome.ok && outcome.refusal === "user_temporarily_blocked") {
      // The block's start is in the audit trail already; refusals during it are not recorded (no flooding), only
      // counted (issue #14).
      counts(db).signIn("password", "blocked");
      throw new ApiError(outcome.refusal, { temporary: true });
    }
    if (!outcome.ok) {
      await audit(db, "sign_in_failed", {
        ...auditContext(request, outcome.userId ?? null),
        method: "password",
        detail: outcome.refusal,
      });
      throw new ApiError(outcome.refusal);
    }
    // The session opens owing what the account owes; the answer tells the web app where to go (spec §4).
    // Trial mode (spec §7, issue #12): the sign-in starts the product's trial, once a product and account. One the
    // cap refuses is refused before the session opens, so the page's error never leaves the person signed in.
    const productCode = inTrialMode(request.body) ? (request.body.productCode ?? config.trialProductCode) : undefined;
    if (productCode && (await trialWouldBeRefused(db, outcome.user.id, productCode)))
      throw new ApiError("trial_limit_reached");
    await app.signIn(request, reply, { user: outcome.user, method: "password" });
    if (productCode) await startTrial(db, outcome.user, { productCode, brand: requestBrand(request, config) });
    return loginAnswer(outcome.user);
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
