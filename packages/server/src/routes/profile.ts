import { api, RATE_LIMITS } from "@gatehouse/contract";
import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { deleteAccount, requestDeletion } from "../accounts/deletion.ts";
import { profileOf, updateProfile } from "../accounts/profile.ts";
import { audit } from "../audit/audit.ts";
import { requestSite } from "../http/client.ts";
import { ApiError } from "../http/errors.ts";
import { limit } from "../http/rate-limit.ts";
import { auditContext } from "../http/session.ts";
import type { Services } from "../services.ts";
import type { Db } from "../store/db.ts";
import { usersStore } from "../store/users.ts";

/** The signed-in user's row, or 401 (spec §6: profile and deletion need a session). */
async function currentUser(db: Db, request: FastifyRequest) {
  const session = request.session.user;
  const user = session ? await usersStore.findById(db, session.user_id) : undefined;
  if (!user) throw new ApiError("not_authenticated");
  return user;
}

/** Profile and account deletion (spec §7, issue #5). */
export const profileRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  const { db, config } = services;

  app.get(`/api${api.profile.path}`, async (request) => profileOf(await currentUser(db, request)));

  app.put(`/api${api.updateProfile.path}`, { schema: { body: api.updateProfile.body } }, async (request) => {
    const user = await currentUser(db, request);
    const outcome = await updateProfile(db, user, request.body);
    if (!outcome.ok)
      throw new ApiError("invalid_request", {
        fields: [{ field: outcome.field, message: "validation.country.required" }],
      });
    await audit(db, "profile_updated", auditContext(request, user.id));
    return {};
  });

  app.post(
    `/api${api.deleteRequest.path}`,
    { schema: { body: api.deleteRequest.body }, config: limit(RATE_LIMITS.deletion) },
    async (request) => {
      const user = await currentUser(db, request);
      const outcome = await requestDeletion(
        db,
        user,
        request.body.password,
        requestSite(request, config),
        Date.now(),
        app.attemptSource(request),
      );
      if (!outcome.ok) {
        if (outcome.refusal === "password_required") {
          throw new ApiError("invalid_request", {
            fields: [{ field: "password", message: "validation.password.required" }],
          });
        }
        if (outcome.refusal === "user_temporarily_blocked")
          throw new ApiError("user_temporarily_blocked", { temporary: true });
        throw new ApiError("current_password_incorrect", {
          fields: [{ field: "password", message: "errors.current_password_incorrect" }],
        });
      }
      await audit(db, "deletion_requested", auditContext(request, user.id));
      services.mail.kick();
      return {};
    },
  );

  app.post(
    `/api${api.deleteAccount.path}`,
    { schema: { body: api.deleteAccount.body }, config: limit(RATE_LIMITS.deletion) },
    async (request, reply) => {
      const outcome = await deleteAccount(db, request.body.deletionCode, requestSite(request, config));
      if (!outcome.ok) throw new ApiError(outcome.refusal, { temporary: false });
      // The sessions went with the account; this browser gets a fresh anonymous one.
      await app.signOut(request, reply);
      services.mail.kick();
      return {};
    },
  );
};
