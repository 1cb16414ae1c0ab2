import { api } from "@gatehouse/contract";
import type { FastifyInstance } from "fastify";
import type { Config } from "../config.ts";
import { factorsOf } from "../factors/factors.ts";
import { visitorCountry } from "../http/client.ts";
import { ApiError } from "../http/errors.ts";
import { mount } from "../http/mount.ts";
import { nextContextOf } from "../http/sign-in.ts";
import type { Services } from "../services.ts";
import { isLinkedBrandHost } from "../settings/sites.ts";
import { attemptNext } from "../signin/attempt.ts";

/**
 * GET /api/session (spec §7): the signed-in user, or 204 No Content for a visitor; both carry X-CSRF-Token.
 * A visitor is the normal case, not an error: a 401 here would log an error in every visitor's console.
 */
export async function sessionRoutes(app: FastifyInstance, { config, db }: { config: Config; db: Services["db"] }) {
  // The hottest route: its answer is a few hundred bytes, under the compression threshold for every real account
  // (docs/decisions.md "Compressed answers"), so it skips the compression hooks rather than paying them to decide
  // so on every call (measured: 3 µs of a 60 µs request).
  mount(
    app,
    api.session,
    async (request, reply) => {
      app.sendCsrfToken(request, reply);
      const session = request.session.user;
      if (!session) return reply.code(204).send();
      return {
        ID: session.id,
        UserGUID: session.user_id,
        Email: session.email,
        FirstName: session.first_name,
        LastName: session.last_name,
        Location: visitorCountry(request, config),
        // Spec §4, issue #10 §5: with linked sessions on, a brand host's session is Linked once its sign-in has
        // reached the central host (no query more: the flag is on the row already read).
        // With the setting off nothing more is read, not even the host name (Fastify derives it per request).
        Linked: !config.linkedSessions || session.linked === 1 || !isLinkedBrandHost(config, request.hostname),
      };
    },
    { compress: false },
  );

  // Issue #24: the browser's unfinished sign-in, for the screen of the step it owes; a session is never one.
  mount(app, api.signInAttempt, async (request) => {
    const attempt = await app.attemptOf(request);
    if (!attempt) throw new ApiError("not_found");
    const next = attemptNext(attempt, nextContextOf(request, config));
    if (attempt.owes !== "second_factor") return { owes: attempt.owes, next };
    // Issue #26: the kinds of second factor the account has, so the screen offers those (never which ones exist
    // for anyone else: the attempt is this browser's, after its proof).
    const factors = await factorsOf(db, attempt.user_id);
    const kinds = { totp: factors.totp, passkeys: factors.passkeys > 0, recoveryCodes: factors.recoveryCodesLeft > 0 };
    return { owes: attempt.owes, next, factors: kinds };
  });
}
