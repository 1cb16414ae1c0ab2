import { randomUUID } from "node:crypto";
import { api } from "@gatehouse/contract";
import type { FastifyInstance } from "fastify";
import { deleteAccount, deletionLinkStatus, requestDeletion } from "../accounts/deletion.ts";
import { profileOf, updateProfile } from "../accounts/profile.ts";
import { requestSetupLink } from "../accounts/recovery.ts";
import { audit } from "../audit/audit.ts";
import { requestSite } from "../http/client.ts";
import { currentUser } from "../http/current-user.ts";
import { ApiError } from "../http/errors.ts";
import { mount } from "../http/mount.ts";
import { auditContext } from "../http/session.ts";
import { afterStep } from "../http/sign-in.ts";
import type { Services } from "../services.ts";

/** Profile and account deletion (spec §7, issue #5). */
export async function profileRoutes(app: FastifyInstance, { services }: { services: Services }) {
  const { db, config } = services;

  // Reading and saving the profile are open to a sign-in attempt that owes the profile update: they are that step.
  mount(app, api.profile, async (request) => profileOf(await currentUser(db, request)));

  mount(app, api.updateProfile, async (request, reply) => {
    const user = await currentUser(db, request);
    const outcome = await updateProfile(db, user, request.body);
    if (!outcome.ok)
      throw new ApiError("invalid_request", {
        fields: [{ field: outcome.field, message: "validation.country.required" }],
      });
    await audit(db, "profile_updated", auditContext(request, user.id));
    return afterStep(app, db, config, { request, reply }, "profile_update", outcome.user);
  });

  mount(app, api.deleteRequest, async (request) => {
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
  });

  // Issue #25: a set-up link for an account without a password; CSRF-checked as every call that changes state.
  mount(app, api.passwordSetupLink, async (request) => {
    const user = await currentUser(db, request);
    await requestSetupLink(db, user, requestSite(request, config));
    await audit(db, "setup_link_requested", auditContext(request, user.id));
    services.mail.kick();
    return {};
  });

  mount(app, api.deletionStatus, async (request) => {
    const status = await deletionLinkStatus(db, request.params.code);
    if (status === "valid" || status === "deleted") return { status };
    // As the reset link's check: an unusable code is shown with a reference that leads to this log line.
    const guid = randomUUID();
    request.log.info({ guid, code: `code_${status}` }, "code refused");
    return { status, guid };
  });

  mount(app, api.deleteAccount, async (request, reply) => {
    const outcome = await deleteAccount(db, request.body.deletionCode, requestSite(request, config));
    if (!outcome.ok) throw new ApiError(outcome.refusal, { temporary: false });
    // The sessions went with the account; this browser gets a fresh anonymous one.
    await app.signOut(request, reply);
    services.mail.kick();
    return {};
  });
}
