import { randomUUID } from "node:crypto";
import { api, type ErrorPageCode, type NextStep, routeUrl } from "@gatehouse/contract";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { normalizeEmail } from "../accounts/identifiers.ts";
import { audit } from "../audit/audit.ts";
import { factorsOf, hasSecondFactor } from "../factors/factors.ts";
import {
  IdentityTaken,
  identitiesOf,
  linkIdentity,
  pendingAnswer,
  pendingOf,
  registerFromProvider,
  takePending,
  unlinkIdentity,
} from "../federation/accounts.ts";
import { finishFlow, startFlow } from "../federation/relying-party.ts";
import { originOf, visitorCountry } from "../http/client.ts";
import { currentUser } from "../http/current-user.ts";
import { ApiError } from "../http/errors.ts";
import { mount, routePath } from "../http/mount.ts";
import { auditContext, signedIn } from "../http/session.ts";
import { destinationOf, proven, signInBrowser } from "../http/sign-in.ts";
import { withMfaDemand } from "../oidc/interaction.ts";
import type { Services } from "../services.ts";
import { type IdentityProvider, providerForEmail } from "../settings/idps.ts";
import { originOfHost } from "../settings/sites.ts";
import { verifyFederated } from "../signin/federated.ts";
import { verifyPassword } from "../signin/password.ts";
import { proofOf } from "../signin/proofs.ts";

/** Redirects that carry codes and addresses: no Referer leaves, nothing is cached (ASVS 14.2.1, 14.3.2). */
function noTrace(reply: FastifyReply): FastifyReply {
  return reply.header("referrer-policy", "no-referrer").header("cache-control", "no-store");
}

/**
 * Where the browser goes from a provider's answer, which arrives as a navigation another site started: an owed step's
 * screen, the provider's sign-in page or the landing page at once; a return address (a legacy site's included)
 * through the sign-in page, which, signed in now, goes on from our own origin — so a destination that serves only our
 * own pages' navigations (`/api/studio/complete`, the legacy token: Sec-Fetch-Site) still serves it.
 */
function afterProvider(next: NextStep): string {
  return next.kind === "return" || next.kind === "legacy" ? routeUrl("LOGIN", { return_to: next.url }) : next.url;
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
      // The person chose Cancel at the provider (RFC 6749 §4.1.2.1 access_denied): not an error (issue #24 §3).
      if (outcome.reason === "cancelled") {
        const page = corporate ? "CORPORATE_LOGIN" : "LOGIN";
        return reply.redirect(routeUrl(page, { return_to: outcome.returnTo, cancelled: idp.id }), 302);
      }
      if (outcome.reason === "state") {
        return refuse(corporate ? "invalid_authentication" : "social_invalid_authentication", outcome.detail);
      }
      return refuse(corporate ? "external_idp_error" : "social_idp_error", outcome.detail);
    }
    const { profile, returnTo } = outcome;
    const origin = originOf(request, services, returnTo);
    const verified = await verifyFederated(db, idp, profile, {
      browser: request.session.token,
      origin,
      country: visitorCountry(request, config),
    });

    switch (verified.kind) {
      case "refused":
        return refuse(verified.code, verified.why);
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
      case "proof": {
        let next: NextStep;
        try {
          next = await signInBrowser(
            app,
            db,
            config,
            { request, reply },
            verified.proof,
            // Issue #26: a site demanding a second factor is not signed in through a remembered browser's skip.
            await withMfaDemand(
              services.oidc.provider,
              { req: request.raw, res: reply.raw },
              destinationOf(request, config, returnTo),
            ),
          );
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          if (error.code === "user_disabled")
            return refuse(corporate ? "user_disabled" : "social_user_disabled", "disabled");
          return refuse("user_not_active", "account not active yet");
        }
        return reply.redirect(afterProvider(next), 302);
      }
    }
  });

  mount(app, api.socialPending, async (request) => {
    const pending = await pendingOf(db, request.session.token, Date.now());
    if (!pending) throw new ApiError("social_invalid_authentication");
    return pendingAnswer(pending);
  });

  // Issue #25: the person's Cancel ends the pending sign-in here too, not only on the page (ASVS 7.4.1: what the
  // person ends is ended on the server).
  mount(app, api.socialCancel, async (request) => {
    await takePending(db, request.session.token, Date.now());
    return {};
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
    const answer = { email: user.email, fullName: `${user.first_name} ${user.last_name}`.trim(), activation };
    if (activation) {
      services.mail.kick();
      return answer;
    }
    // The provider vouched for the address: the new account is signed in, and goes where the sign-in was going.
    const destination = destinationOf(request, config, pending.return_to);
    const proof = proofOf(user, "social", pending.provider);
    return { ...answer, next: await signInBrowser(app, db, config, { request, reply }, proof, destination) };
  });

  // Linking proves the existing account by its password, with the sign-in's throttling (ASVS 6.3.1).
  mount(app, api.socialLink, async (request, reply) => {
    const now = Date.now();
    const pending = await pendingOf(db, request.session.token, now);
    if (pending?.kind !== "link" || normalizeEmail(request.body.email) !== normalizeEmail(pending.email)) {
      throw new ApiError("social_invalid_authentication");
    }
    const proof = proven(
      await verifyPassword(db, {
        email: pending.email,
        password: request.body.password,
        source: app.attemptSource(request),
        // Counted and audited as the social sign-in it finishes (issue #14), as its success is.
        method: "social",
        detail: "link",
      }),
    );
    const answer = (next: NextStep) => ({
      RequiredPasswordUpdate: proof.user.required_password_update === 1,
      RequiredProfileUpdate: proof.user.required_profile_update === 1,
      next,
    });
    if (hasSecondFactor(await factorsOf(db, proof.user.id))) {
      // Issue #26: the password alone adds no way in to an account with a second factor. The sign-in owes the factor;
      // the identity is linked once it is given (signin/attempt.ts), and the pending sign-in waits for it.
      const owing = proofOf(proof.user, "social", pending.provider);
      const destination = destinationOf(request, config, request.body.returnTo ?? pending.return_to);
      return answer(await signInBrowser(app, db, config, { request, reply }, owing, destination));
    }
    const taken = await takePending(db, request.session.token, now);
    if (!taken) throw new ApiError("social_invalid_authentication");
    try {
      await linkIdentity(db, proof.user.id, {
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
    await audit(db, "identity_linked", { ...auditContext(request, proof.user.id), detail: taken.provider });
    const linked = proofOf(proof.user, "social", taken.provider);
    const destination = destinationOf(request, config, request.body.returnTo ?? taken.return_to);
    return answer(await signInBrowser(app, db, config, { request, reply }, linked, destination));
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
