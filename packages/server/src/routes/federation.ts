import { randomUUID } from "node:crypto";
import { api, type ErrorPageCode, routeUrl } from "@gatehouse/contract";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { loginAnswer } from "../accounts/finish-sign-in.ts";
import { normalizeEmail } from "../accounts/identifiers.ts";
import { signInWithPassword } from "../accounts/sign-in.ts";
import { audit } from "../audit/audit.ts";
import {
  IdentityTaken,
  identitiesOf,
  linkIdentity,
  pendingAnswer,
  pendingOf,
  registerFromProvider,
  resolveCorporate,
  resolveSocial,
  unlinkIdentity,
} from "../federation/accounts.ts";
import { browserKey, finishFlow, startFlow } from "../federation/relying-party.ts";
import { originOf, visitorCountry } from "../http/client.ts";
import { currentUser } from "../http/current-user.ts";
import { ApiError } from "../http/errors.ts";
import { mount, routePath } from "../http/mount.ts";
import { auditContext, signedIn } from "../http/session.ts";
import { counts } from "../metrics/counts.ts";
import type { Services } from "../services.ts";
import { type IdentityProvider, providerForEmail } from "../settings/idps.ts";
import { originOfHost } from "../settings/sites.ts";
import { federationStore } from "../store/federation.ts";

/** Redirects that carry codes and addresses: no Referer leaves, nothing is cached (ASVS 14.2.1, 14.3.2). */
function noTrace(reply: FastifyReply): FastifyReply {
  return reply.header("referrer-policy", "no-referrer").header("cache-control", "no-store");
}

/**
 * Social and corporate sign-in (spec §7, issue #11) with openid-client as the relying party of every provider of
 * IDPS_FILE. Each round trip is bound to the browser that started it; every answer ends in a redirect.
 */
export async function federationRoutes(app: FastifyInstance, { services }: { services: Services }) {
  const { db, config } = services;
  const providers = new Map(config.idps.map((idp) => [idp.id, idp]));
  const callbackPath = routePath(api.federationCallback);

  /**
   * Our callback on the origin of the host the person is on, so the answer comes back to the browser's own cookie;
   * the origin comes from the brands file, never from the Host header (a deployment registers each at the provider).
   */
  const callbackUri = (request: FastifyRequest, idp: IdentityProvider) => {
    const origin = originOfHost(config, request.hostname);
    return origin && `${origin}${callbackPath.replace(":provider", idp.id)}`;
  };

  mount(app, api.socialLogin, async (request) => {
    const idp = providers.get(request.body.platform);
    const redirectUri = idp && callbackUri(request, idp);
    if (!idp || !redirectUri) throw new ApiError("social_idp_error");
    const { returnTo } = originOf(request, services, request.body.continue);
    try {
      const url = await startFlow(db, {
        idp,
        browser: request.session.token,
        redirectUri,
        returnTo,
        prompt: request.body.prompt,
      });
      return { redirect_to: url.href };
    } catch (err) {
      request.log.warn({ err, provider: idp.id }, "social provider unreachable");
      throw new ApiError("social_idp_error");
    }
  });

  // Spec §7: the address names its company's provider; the answer says nothing about accounts.
  mount(app, api.federatedLogin, async (request) => {
    const idp = providerForEmail(config.idps, request.body.email);
    const redirectUri = idp && callbackUri(request, idp);
    if (!idp || !redirectUri) {
      throw new ApiError("no_identity_provider", {
        fields: [{ field: "email", message: "errors.no_identity_provider" }],
      });
    }
    const { returnTo } = originOf(request, services, request.body.origin);
    try {
      const url = await startFlow(db, {
        idp,
        browser: request.session.token,
        redirectUri,
        returnTo,
        loginHint: request.body.email,
        prompt: request.body.prompt,
      });
      return { redirect_to: url.href };
    } catch (err) {
      request.log.warn({ err, provider: idp.id }, "company provider unreachable");
      throw new ApiError("external_idp_error");
    }
  });

  mount(app, api.federationCallback, async (request, reply) => {
    noTrace(reply);
    const idp = providers.get(request.params.provider);
    const corporate = idp?.kind === "corporate";
    /** A refusal lands on the error page with a reference that is also in the log (ASVS 16.5.1). */
    const refuse = (code: ErrorPageCode, why: string) => {
      const guid = randomUUID();
      request.log.info({ guid, code, provider: request.params.provider }, `federated sign-in refused: ${why}`);
      const page = corporate ? "CORPORATE_LOGIN_ERROR" : "ERROR";
      return reply.redirect(routeUrl(page, { error_code: code, error_id: guid }), 302);
    };
    if (!idp) return refuse("social_invalid_authentication", "unknown provider");

    const outcome = await finishFlow(db, idp, request.session.token, request.query);
    if (!outcome.ok) {
      if (outcome.reason === "state") {
        return refuse(corporate ? "invalid_authentication" : "social_invalid_authentication", outcome.detail);
      }
      return refuse(corporate ? "external_idp_error" : "social_idp_error", outcome.detail);
    }
    const { profile, returnTo } = outcome;
    const resolution = corporate
      ? await resolveCorporate(db, idp, profile, {
          ...originOf(request, services, returnTo),
          country: visitorCountry(request, config),
        })
      : await resolveSocial(db, idp, profile, { browser: request.session.token, returnTo });

    switch (resolution.kind) {
      case "refused":
        return refuse(resolution.code, resolution.why);
      case "register":
        return reply.redirect(
          routeUrl("REGISTER_SOCIAL", {
            platform: idp.id,
            email: profile.email,
            firstName: profile.firstName,
            lastName: profile.lastName,
            fullName: profile.fullName,
            return_to: returnTo,
          }),
          302,
        );
      case "link":
        return reply.redirect(routeUrl("LINK_EXISTING_SOCIAL", { email: profile.email, return_to: returnTo }), 302);
      case "sign_in":
        try {
          await app.signIn(request, reply, { user: resolution.user, method: idp.kind, idp: idp.id });
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          if (error.code === "user_disabled")
            return refuse(corporate ? "user_disabled" : "social_user_disabled", "disabled");
          return refuse("user_not_active", "account not active yet");
        }
        // The sign-in page sends a signed-in person on: to an owed step, the legacy flow, or the return address.
        return reply.redirect(routeUrl("LOGIN", { return_to: returnTo }), 302);
    }
  });

  mount(app, api.socialPending, async (request) => {
    const pending = await pendingOf(db, request.session.token, Date.now());
    if (!pending) throw new ApiError("social_invalid_authentication");
    return pendingAnswer(pending);
  });

  mount(app, api.socialRegister, async (request, reply) => {
    const outcome = await registerFromProvider(
      db,
      request.session.token,
      request.body,
      originOf(request, services, undefined),
    );
    if (!outcome.ok) throw new ApiError(outcome.refusal);
    const { user, activation, pending } = outcome;
    if (activation) services.mail.kick();
    else await app.signIn(request, reply, { user, method: "social", idp: pending.provider });
    return { email: user.email, fullName: `${user.first_name} ${user.last_name}`.trim(), activation };
  });

  // Linking proves the existing account by its password, with the sign-in's throttling (ASVS 6.3.1).
  mount(app, api.socialLink, async (request, reply) => {
    const now = Date.now();
    const pending = await federationStore.findPending(db, browserKey(request.session.token), now);
    if (pending?.kind !== "link" || normalizeEmail(request.body.email) !== normalizeEmail(pending.email)) {
      throw new ApiError("social_invalid_authentication");
    }
    const outcome = await signInWithPassword(db, pending.email, request.body.password, now, app.attemptSource(request));
    // Counted as the social sign-in it finishes (issue #14), as its success is.
    if (!outcome.ok && outcome.refusal === "user_temporarily_blocked") {
      counts(db).signIn("social", "blocked");
      throw new ApiError(outcome.refusal, { temporary: true });
    }
    if (!outcome.ok) {
      await audit(db, "sign_in_failed", {
        ...auditContext(request, outcome.userId ?? null),
        method: "social",
        detail: `link: ${outcome.refusal}`,
      });
      throw new ApiError(outcome.refusal);
    }
    const taken = await federationStore.consumePending(db, pending.browser, now);
    if (!taken) throw new ApiError("social_invalid_authentication");
    try {
      await linkIdentity(db, outcome.user.id, {
        provider: taken.provider,
        subject: taken.subject,
        email: taken.email,
        linked_at: now,
      });
    } catch (error) {
      // The provider's person is another account's meanwhile (registered in another browser): nothing linked.
      if (error instanceof IdentityTaken) throw new ApiError("social_invalid_authentication");
      throw error;
    }
    await audit(db, "identity_linked", { ...auditContext(request, outcome.user.id), detail: taken.provider });
    await app.signIn(request, reply, { user: outcome.user, method: "social", idp: taken.provider });
    return loginAnswer(outcome.user);
  });

  mount(app, api.identities, async (request) => {
    const user = await currentUser(db, request);
    const identities = await identitiesOf(db, user.id);
    return {
      identities: identities.map((identity) => ({
        provider: identity.provider,
        name: providers.get(identity.provider)?.name ?? identity.provider,
        email: identity.email,
        linkedAt: identity.linked_at,
      })),
      hasPassword: hasPassword(user),
    };
  });

  // An identity goes only while another way to sign in stays: a password, or another identity.
  mount(app, api.unlinkIdentity, async (request) => {
    const user = await currentUser(db, request);
    const removed = await unlinkIdentity(db, user.id, request.params.provider);
    if (removed === "missing") throw new ApiError("not_found");
    if (removed === "last") throw new ApiError("identity_last_method");
    await audit(db, "identity_unlinked", {
      ...auditContext(request, signedIn(request).user_id),
      detail: request.params.provider,
    });
    return {};
  });
}

const hasPassword = (user: { password_hash: string | null; password_allowed: number }) =>
  user.password_hash !== null && user.password_allowed === 1;
