import { randomUUID } from "node:crypto";
import { api, BRANDS, isPasswordPolicyCode } from "@gatehouse/contract";
import type { FastifyInstance } from "fastify";
import { changePassword } from "../accounts/change-password.ts";
import {
  type PasswordRefusal,
  passwordCodeStatus,
  requestRecovery,
  resetPassword,
  setupAsksSurvey,
} from "../accounts/recovery.ts";
import { startSignupTrial } from "../accounts/trials.ts";
import { audit } from "../audit/audit.ts";
import { originOf, requestBrand, requestSite } from "../http/client.ts";
import { ApiError, passwordRefused } from "../http/errors.ts";
import { mount } from "../http/mount.ts";
import { accountIdOf, auditContext, clientMeta } from "../http/session.ts";
import { afterStep, destinationOf, proven, signInBrowser } from "../http/sign-in.ts";
import type { Services } from "../services.ts";
import { verifySetup } from "../signin/mailed-code.ts";

function refuse(
  refusal: PasswordRefusal | "current_password_incorrect" | "password_not_allowed" | "user_temporarily_blocked",
): never {
  if (isPasswordPolicyCode(refusal)) throw passwordRefused(refusal);
  if (refusal === "current_password_incorrect") {
    throw new ApiError("current_password_incorrect", {
      fields: [{ field: "oldPassword", message: "errors.current_password_incorrect" }],
    });
  }
  if (refusal === "user_temporarily_blocked") throw new ApiError(refusal, { temporary: true });
  throw new ApiError(refusal, refusal.startsWith("code_") ? { temporary: false } : {});
}

/** Passwords (spec §7): recover, code status, reset, set up (invited users), change. */
export async function passwordRoutes(app: FastifyInstance, { services }: { services: Services }) {
  const { db, config } = services;

  mount(app, api.recover, async (request) => {
    await requestRecovery(db, request.body.email, originOf(request, services, request.body.returnTo));
    services.mail.kick();
    return {};
  });

  mount(app, api.recoverStatus, async (request) => {
    const status = await passwordCodeStatus(db, request.params.code);
    if (status === "valid") {
      const survey = await setupAsksSurvey(db, request.params.code);
      return survey === undefined ? { status } : { status, survey };
    }
    // Spec §2: an unusable code is shown "with a reference"; the guid leads to this log line, as errors' do.
    const guid = randomUUID();
    request.log.info({ guid, code: `code_${status}` }, "code refused");
    return { status, guid };
  });

  mount(app, api.resetPassword, async (request) => {
    const { code, password } = request.body;
    const outcome = await resetPassword(db, code, password, requestSite(request, config));
    if (!outcome.ok) refuse(outcome.refusal);
    await audit(db, "password_reset", auditContext(request, outcome.user.id));
    // A trial sign-up proven by its reset link instead of its activation link starts its trial all the same.
    await startSignupTrial(db, outcome.user, {
      productCode: config.trialProductCode,
      brand: config.brands.defaultBrand,
    });
    services.mail.kick();
    return {};
  });

  mount(app, api.setupPassword, async (request, reply) => {
    const { code, password, marketingInfo } = request.body;
    // An invitation answers the survey (spec §2); checked before the code is spent, so the link keeps working.
    if (!marketingInfo && (await setupAsksSurvey(db, code))) {
      throw new ApiError("invalid_request", { fields: [{ field: "marketingInfo", message: "validation.required" }] });
    }
    const verified = await verifySetup(db, { code, password, marketingInfo, client: clientMeta(request) });
    const proof = proven(verified);
    // The mailed code proved the address: the new user is signed in and continues to the customer portal (spec §4).
    const portal = BRANDS[requestBrand(request, config)].links.portal;
    const destination = destinationOf(request, config, undefined, portal);
    return { next: await signInBrowser(app, db, config, { request, reply }, proof, destination) };
  });

  // The signed-in person's change, or the password step a sign-in attempt owes (issue #24; http/mount.ts).
  mount(app, api.changePassword, async (request, reply) => {
    const userId = accountIdOf(request);
    const outcome = await changePassword(db, {
      userId,
      ...(request.session.user ? { keepSessionId: request.session.user.id } : {}),
      oldPassword: request.body.oldPassword,
      password: request.body.password,
      site: requestSite(request, config),
      source: app.attemptSource(request),
    });
    if (!outcome.ok) refuse(outcome.refusal);
    await audit(db, "password_changed", auditContext(request, userId));
    services.mail.kick();
    return afterStep(app, db, config, { request, reply }, "password_change", outcome.user);
  });
}
