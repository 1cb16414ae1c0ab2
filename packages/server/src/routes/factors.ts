import { api, BRANDS } from "@gatehouse/contract";
import type { FastifyInstance, FastifyRequest } from "fastify";
import {
  type Actor,
  confirmTotp,
  reauthenticate,
  regenerateRecoveryCodes,
  removeTotp,
  securityOf,
  startTotp,
} from "../factors/manage.ts";
import { rememberBrowser } from "../factors/remembered-browsers.ts";
import { checkCode } from "../factors/second-factor.ts";
import { requestBrand, requestSite } from "../http/client.ts";
import { currentUser } from "../http/current-user.ts";
import { ApiError } from "../http/errors.ts";
import { mount } from "../http/mount.ts";
import { signedIn } from "../http/session.ts";
import { afterStep } from "../http/sign-in.ts";
import type { Services } from "../services.ts";

type Refusal =
  | "not_found"
  | "invalid_request"
  | "password_required"
  | "current_password_incorrect"
  | "totp_already_enabled"
  | "second_factor_invalid"
  | "user_temporarily_blocked";

/** A refusal of a factor's service as the API's error object. */
function refuse(refusal: Refusal): never {
  if (refusal === "user_temporarily_blocked") throw new ApiError(refusal, { temporary: true });
  if (refusal === "password_required") {
    throw new ApiError("invalid_request", { fields: [{ field: "password", message: "validation.password.required" }] });
  }
  if (refusal === "current_password_incorrect") {
    throw new ApiError(refusal, { fields: [{ field: "password", message: "errors.current_password_incorrect" }] });
  }
  throw new ApiError(refusal);
}

/**
 * Issue #26: the second factor a sign-in attempt owes, the account's authenticator app and recovery codes, its
 * "Sign-in and security" overview, and the step-up proof (the `fresh` calls need it: http/mount.ts).
 */
export async function factorRoutes(app: FastifyInstance, { services }: { services: Services }) {
  const { db, config } = services;

  const actorOf = (request: FastifyRequest): Actor => ({
    session: signedIn(request),
    sessionSecret: config.sessionSecret,
    site: requestSite(request, config),
    source: app.attemptSource(request),
  });

  // Open to the browser's sign-in attempt that owes the second factor (http/mount.ts `step`), and to no session.
  mount(app, api.secondFactor, async (request, reply) => {
    const attempt = request.attempt ?? (await app.attemptOf(request));
    if (attempt?.owes !== "second_factor") throw new ApiError("not_authenticated");
    request.attempt = attempt;
    const user = await currentUser(db, request);
    const { method, code, remember } = request.body;
    const source = app.attemptSource(request);
    const noticeSite = requestSite(request, config);
    const checked = await checkCode(db, {
      user,
      method,
      code,
      sessionSecret: config.sessionSecret,
      source,
      noticeSite,
    });
    if (!checked.ok) refuse(checked.refusal);
    const { next } = await afterStep(app, db, config, { request, reply }, "second_factor", user, ["otp", "mfa"]);
    if (!next) throw new ApiError("not_authenticated");
    if (remember) await rememberBrowser(db, user.id, app.trustBrowser(reply, user.email_normalized, request));
    if (checked.recoveryCodesLeft === undefined) return { next };
    services.mail.kick();
    return { next, recoveryCodesLeft: checked.recoveryCodesLeft };
  });

  mount(app, api.security, async (request) => securityOf(db, signedIn(request)));

  mount(app, api.reauthenticate, async (request) => {
    const outcome = await reauthenticate(db, actorOf(request), request.body);
    if (!outcome.ok) refuse(outcome.refusal);
    services.mail.kick();
    return { freshUntil: outcome.freshUntil };
  });

  mount(app, api.totpStart, async (request) => {
    const issuer = BRANDS[requestBrand(request, config)].name;
    const outcome = await startTotp(db, actorOf(request), issuer);
    if (!outcome.ok) refuse(outcome.refusal);
    return { secret: outcome.secret, uri: outcome.uri };
  });

  mount(app, api.totpConfirm, async (request) => {
    const outcome = await confirmTotp(db, actorOf(request), request.body.code);
    if (!outcome.ok) refuse(outcome.refusal);
    services.mail.kick();
    return outcome.recoveryCodes ? { recoveryCodes: outcome.recoveryCodes } : {};
  });

  mount(app, api.totpRemove, async (request) => {
    await removeTotp(db, actorOf(request));
    services.mail.kick();
    return {};
  });

  mount(app, api.recoveryCodes, async (request) => {
    const outcome = await regenerateRecoveryCodes(db, actorOf(request));
    if (!outcome.ok) refuse(outcome.refusal);
    return { recoveryCodes: outcome.recoveryCodes };
  });
}
