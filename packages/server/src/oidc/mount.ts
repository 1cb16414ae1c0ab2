import type { IncomingMessage, ServerResponse } from "node:http";
import fastifyMiddie from "@fastify/middie";
import { ROUTES } from "@gatehouse/contract";
import type { FastifyInstance } from "fastify";
import type Provider from "oidc-provider";
import type { KoaContextWithOIDC } from "oidc-provider";
import type { Config } from "../config.ts";
import { closeSession } from "../sessions/sessions.ts";
import type { Db } from "../store/db.ts";
import { gatewayCookieName, gatewaySessionIdOf } from "./gateway-session.ts";
import { OIDC_MOUNT } from "./provider.ts";

/** Headers a proxy sets about the original request; believed only from a peer TRUST_PROXY trusts. */
const FORWARDED_HEADERS = ["x-forwarded-proto", "x-forwarded-host", "x-forwarded-for", "x-forwarded-port", "forwarded"];

/**
 * Headers of every provider answer. Its pages (the end-session form, form_post) may run only the inline scripts
 * whose hashes the provider adds to `script-src`; nothing may frame them (ASVS 3.4.3, 3.4.6); its redirects carry
 * codes, so no Referer leaves (ASVS 3.4.5).
 */
function securityHeaders(https: boolean) {
  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>) => {
    ctx.set("x-content-type-options", "nosniff");
    ctx.set("referrer-policy", "no-referrer");
    ctx.set(
      "content-security-policy",
      "default-src 'none'; script-src 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    if (https) ctx.set("strict-transport-security", "max-age=31536000; includeSubDomains");
    await next();
  };
}

/**
 * Confirming the end-session page signs the person out of the gateway too: the gateway session is the source of
 * truth, and a provider session ended while the gateway's lives would simply be opened again at the next visit.
 * Closing it announces the end, so every provider session under it ends, with its back-channel logouts.
 */
function signOutOfGateway(db: Db, config: Config) {
  const cookie = gatewayCookieName(config);
  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>) => {
    await next();
    if (ctx.oidc?.route !== "end_session_confirm" || ctx.status !== 303 || !ctx.oidc.params?.logout) return;
    // Only a confirmation of our end-session page (shown when a person was signed in to the provider): without a
    // provider session the library submits its form by itself, and a link alone must sign nobody out.
    if (!ctx.oidc.session?.accountId) return;
    const token = ctx.cookies.get(cookie);
    if (!token || !gatewaySessionIdOf(token)) return;
    // Closing it announces the end, and the provider sessions under it end with it (app.ts, onSessionsEnded).
    await closeSession(db, token);
  };
}

/**
 * A desktop app's sign-out without a post-logout address ends on the ULA sign-out page (issue #10 §4). The
 * provider forwards the client to its success page only when the person left that client alone; ours always
 * signs out of everything (`logout=yes`), so the client is read here, where the confirmation still knows it.
 */
function nativeLogoutLanding() {
  const success = `${OIDC_MOUNT}/session/end/success`;
  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>) => {
    await next();
    if (ctx.oidc?.route !== "end_session_confirm" || ctx.status !== 303) return;
    const location = URL.parse(ctx.response.get("location"), "http://any");
    if (location?.pathname !== success || ctx.oidc.client?.applicationType !== "native") return;
    ctx.redirect(ROUTES.ULA_LOGOUT_SUCCESS.path);
  };
}

/**
 * Mounts the provider at /oidc through `@fastify/middie` (the provider's documented way for Fastify). Middie runs
 * in its own scope, on the two catch-all routes below only, in their onRequest hook, before Fastify parses any
 * body: the provider reads its own request bodies, and no other route pays for the middleware engine. The
 * gateway's page headers, CSP and error handler belong to other scopes and never touch these answers.
 */
export async function mountProvider(
  app: FastifyInstance,
  options: { provider: Provider; db: Db; config: Config },
): Promise<void> {
  const { provider, db, config } = options;
  provider.use(securityHeaders(config.publicUrl.protocol === "https:"));
  provider.use(signOutOfGateway(db, config));
  provider.use(nativeLogoutLanding());
  const callback = provider.callback();
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    // Koa's `proxy` believes X-Forwarded-* from anyone; Fastify's trustProxy rule decides instead (TRUST_PROXY).
    if (!config.trustedProxy(req.socket.remoteAddress)) for (const name of FORWARDED_HEADERS) delete req.headers[name];
    void callback(req, res);
  };
  await app.register(async (scope) => {
    await scope.register(fastifyMiddie);
    scope.use(OIDC_MOUNT, handle);
    // Never reached: the provider answers every request under the mount in the onRequest hook.
    const unreachable = async () => undefined;
    scope.all(OIDC_MOUNT, unreachable);
    scope.all(`${OIDC_MOUNT}/*`, unreachable);
  });
}
