import { api, LOGIN_RATE_PER_ADDRESS } from "@gatehouse/contract";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod/mini";
import { isCorporateDomain } from "../accounts/registration.ts";
import { signInWithPassword } from "../accounts/sign-in.ts";
import { audit } from "../audit/audit.ts";
import { ApiError } from "../http/errors.ts";
import { limit } from "../http/rate-limit.ts";
import { auditContext } from "../http/session.ts";
import type { EndProviderSessions } from "../oidc/sessions.ts";
import { sessionId } from "../sessions/sessions.ts";
import type { Db } from "../store/db.ts";

/** Sign-in and sign-out (spec §7). */
export const loginRoutes: FastifyPluginAsyncZod<{
  db: Db;
  corporateDomains: readonly string[];
  endProviderSessions: EndProviderSessions;
}> = async (app, { db, corporateDomains, endProviderSessions }) => {
  app.post(
    `/api${api.login.path}`,
    {
      schema: { body: api.login.body },
      // Per client address, whatever the account (ASVS 6.3.1 / OWASP credential stuffing cheat sheet).
      config: limit(LOGIN_RATE_PER_ADDRESS),
    },
    async (request, reply) => {
      const outcome = await signInWithPassword(
        db,
        request.body.email,
        request.body.password,
        Date.now(),
        app.attemptSource(request),
      );
      const context = auditContext(request, outcome.ok ? outcome.user.id : (outcome.userId ?? null));
      if (!outcome.ok && outcome.refusal === "user_temporarily_blocked") {
        // The block's start is in the audit trail already; refusals during it are not recorded (no flooding).
        throw new ApiError(outcome.refusal, { temporary: true });
      }
      if (!outcome.ok) {
        await audit(db, "sign_in_failed", { ...context, detail: outcome.refusal });
        throw new ApiError(outcome.refusal);
      }
      await app.signIn(request, reply, outcome.user);
      await audit(db, "sign_in", context);
      return {
        RequiredPasswordUpdate: outcome.user.required_password_update === 1,
        RequiredProfileUpdate: outcome.user.required_profile_update === 1,
      };
    },
  );

  // Spec §7 login modes: decided by the address's domain alone, so the answer says nothing about accounts.
  app.post(
    `/api${api.loginModes.path}`,
    { schema: { body: api.loginModes.body }, config: limit(LOGIN_RATE_PER_ADDRESS) },
    async (request) => {
      const oidc = isCorporateDomain(request.body.username, corporateDomains);
      return { oidc, password: !oidc };
    },
  );

  app.post(`/api${api.logout.path}`, { schema: { body: z.optional(api.logout.body) } }, async (request, reply) => {
    const ended = sessionId(request.session.token);
    await app.signOut(request, reply);
    // The provider's sessions under this one end too, with their back-channel logouts (issue #10 §2).
    await endProviderSessions([ended]);
    return {};
  });
};
