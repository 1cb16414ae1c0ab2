import { randomUUID } from "node:crypto";
import { api, isPasswordPolicyCode } from "@gatehouse/contract";
import type { FastifyInstance } from "fastify";
import { changePassword } from "../accounts/change-password.ts";
import {
  type PasswordRefusal,
  passwordCodeStatus,
  requestRecovery,
  resetPassword,
  setupPassword,
} from "../accounts/recovery.ts";
import { startSignupTrial } from "../accounts/trials.ts";
import { audit } from "../audit/audit.ts";
import { originOf, requestSite } from "../http/client.ts";
import { ApiError, passwordRefused } from "../http/errors.ts";
import { mount } from "../http/mount.ts";
import { auditContext, signedIn } from "../http/session.ts";
import type { Services } from "../services.ts";

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
    if (status === "valid") return { status };
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
    const outcome = await setupPassword(db, request.body.code, request.body.password, request.body.marketingInfo);
    if (!outcome.ok) refuse(outcome.refusal);
    await audit(db, "password_setup", auditContext(request, outcome.user.id));
    // The mailed code proved the address: the new user is signed in and continues to the customer portal.
    await app.signIn(request, reply, { user: outcome.user, method: "password_setup" });
    return {};
  });

  // Open to a session that owes the password change: it is that step (issue #10 §1).
  mount(app, api.changePassword, async (request, reply) => {
    const session = signedIn(request);
    const outcome = await changePassword(db, {
      userId: session.user_id,
      sessionToken: request.session.token,
      oldPassword: request.body.oldPassword,
      password: request.body.password,
      site: requestSite(request, config),
      source: app.attemptSource(request),
    });
    if (!outcome.ok) refuse(outcome.refusal);
    await audit(db, "password_changed", auditContext(request, session.user_id));
    await app.stepDone(request, reply, "password_change", outcome.next);
    services.mail.kick();
    return {};
  });
}
