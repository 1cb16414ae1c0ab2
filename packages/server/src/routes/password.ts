import { randomUUID } from "node:crypto";
import { api, isPasswordPolicyCode, RATE_LIMITS } from "@gatehouse/contract";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { changePassword } from "../accounts/change-password.ts";
import {
  type PasswordRefusal,
  passwordCodeStatus,
  requestRecovery,
  resetPassword,
  setupPassword,
} from "../accounts/recovery.ts";
import { audit } from "../audit/audit.ts";
import { requestSite } from "../http/client.ts";
import { ApiError } from "../http/errors.ts";
import { limit } from "../http/rate-limit.ts";
import { auditContext } from "../http/session.ts";
import type { Services } from "../services.ts";
import { originOf, passwordRefused } from "./register.ts";

/** Fastify's form of a contract path: `{code}` → `:code`. */
const fastifyPath = (path: string) => `/api${path.replace(/\{(\w+)\}/gu, ":$1")}`;

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
export const passwordRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  const { db, config } = services;

  app.post(
    `/api${api.recover.path}`,
    { schema: { body: api.recover.body }, config: limit(RATE_LIMITS.recover) },
    async (request) => {
      await requestRecovery(db, request.body.email, originOf(request, services, request.body.returnTo));
      services.mail.kick();
      return {};
    },
  );

  app.get<{ Params: { code: string } }>(
    fastifyPath(api.recoverStatus.path),
    { config: limit(RATE_LIMITS.codeCheck) },
    async (request) => {
      const status = await passwordCodeStatus(db, request.params.code);
      if (status === "valid") return { status };
      // Spec §2: an unusable code is shown "with a reference"; the guid leads to this log line, as errors' do.
      const guid = randomUUID();
      request.log.info({ guid, code: `code_${status}` }, "code refused");
      return { status, guid };
    },
  );

  app.post(
    `/api${api.resetPassword.path}`,
    { schema: { body: api.resetPassword.body }, config: limit(RATE_LIMITS.setPassword) },
    async (request) => {
      const { code, password } = request.body;
      const outcome = await resetPassword(db, code, password, requestSite(request, config));
      if (!outcome.ok) refuse(outcome.refusal);
      await audit(db, "password_reset", auditContext(request, outcome.userId));
      services.mail.kick();
      return {};
    },
  );

  app.post(
    `/api${api.setupPassword.path}`,
    { schema: { body: api.setupPassword.body }, config: limit(RATE_LIMITS.setPassword) },
    async (request, reply) => {
      const outcome = await setupPassword(db, request.body.code, request.body.password, request.body.marketingInfo);
      if (!outcome.ok) refuse(outcome.refusal);
      if (outcome.user.status !== "active") throw new ApiError("user_disabled");
      await audit(db, "password_setup", auditContext(request, outcome.user.id));
      // The mailed code proved the address: the new user is signed in and continues to the customer portal.
      await app.signIn(request, reply, outcome.user);
      return {};
    },
  );

  app.post(
    `/api${api.changePassword.path}`,
    { schema: { body: api.changePassword.body }, config: limit(RATE_LIMITS.setPassword) },
    async (request) => {
      const session = request.session.user;
      if (!session) throw new ApiError("not_authenticated");
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
      services.mail.kick();
      return {};
    },
  );
};
