import { BRANDS, checkReturnTo, type NextStep, type OwedStep, routeUrl } from "@gatehouse/contract";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Config } from "../config.ts";
import { tokenOrigins } from "../settings/clients.ts";
import { originOfHost, siteOf } from "../settings/sites.ts";
import { type Browser, signIn, stepDone } from "../signin/attempt.ts";
import type { Destination, NextContext } from "../signin/next.ts";
import type { Amr, Proof, Verified } from "../signin/proofs.ts";
import type { Db } from "../store/db.ts";
import type { UserRow } from "../store/schema.ts";
import { requestBrand, requestSite } from "./client.ts";
import { ApiError } from "./errors.ts";

/**
 * The HTTP side of the sign-in core (issue #24 §1): what a request tells the core (its browser, its host's return
 * policy and landing page) and what the core's answer does to the browser (the new session's cookies). Deciding
 * stays in signin/; routes call these with a verifier's proof and answer the `next` they get.
 */

/** The origin of the request's host (from the brands file, never the Host header), PUBLIC_URL's otherwise. */
function selfOrigin(request: FastifyRequest, config: Config): string {
  return originOfHost(config, request.hostname) ?? config.publicUrl.origin;
}

/** The next step's context on this host. */
export function nextContextOf(request: FastifyRequest, config: Config): NextContext {
  return { selfOrigin: selfOrigin(request, config), legacyOrigins: tokenOrigins(config) };
}

/**
 * Where a sign-in without a return address lands (spec §4; issue #24 §3): the brand's own "Authentication complete"
 * page where it has one, else the brand's home page — or the account page on a host the brands file says lands
 * there (the development file's localhost hosts, whose brands' public sites are out of reach).
 */
export function landingOf(request: FastifyRequest, config: Config): string {
  const brand = BRANDS[requestBrand(request, config)];
  if (brand.traits.authenticationCompletePage) return routeUrl("LOGIN_SUCCESS");
  return siteOf(config, request.hostname)?.landing === "account" ? routeUrl("ACCOUNT_EDIT") : brand.links.home;
}

/**
 * The sign-in's destination: the return address when this host's policy allows it (ASVS 5.1.5; a path is checked as
 * this host's, and stays a path), and the landing.
 */
export function destinationOf(
  request: FastifyRequest,
  config: Config,
  returnTo: string | null | undefined,
  landing = landingOf(request, config),
): Destination {
  const policy = { allowedHosts: config.brands.returnHosts, selfOrigin: selfOrigin(request, config) };
  const allowed = checkReturnTo(returnTo, policy);
  if (!allowed) return { landing };
  // A path stays a path: the browser resolves it on the host it is on (a host outside the brands file too).
  const url = new URL(allowed);
  return { landing, returnTo: returnTo?.startsWith("/") ? `${url.pathname}${url.search}${url.hash}` : allowed };
}

/** A verifier's refusal as the API's error (the verifier has counted and audited it). */
export function proven(verified: Verified): Proof {
  if (verified.ok) return verified.proof;
  const { code, temporary, field } = verified.refusal;
  throw new ApiError(code, {
    ...(temporary === undefined ? {} : { temporary }),
    ...(field ? { fields: [{ field, message: `errors.${code}` }] } : {}),
  });
}

/**
 * Signs the request's browser in with a proof: the core decides (an attempt owing a step, or a finished sign-in);
 * a finished one's session is handed to the browser. Answers where the person goes next; a refusal is thrown.
 */
export async function signInBrowser(
  app: FastifyInstance,
  db: Db,
  config: Config,
  exchange: { request: FastifyRequest; reply: FastifyReply },
  proof: Proof,
  destination: Destination,
): Promise<NextStep> {
  const { request, reply } = exchange;
  const browser = await signingInBrowser(app, config, request, proof.user);
  // Issue #26: for a site that demands a second factor (destination.mfa), a remembered browser does not skip it.
  const asked = destination.mfa ? { ...browser, device: undefined } : browser;
  const outcome = await signIn(db, proof, asked, destination, nextContextOf(request, config));
  if (!outcome.ok) throw new ApiError(outcome.refusal.code);
  if (outcome.session) handOver(app, exchange, outcome.session, proof.user, browser);
  // A proof owing a step is given in this browser too: it is trusted for the account already.
  else app.trustBrowser(reply, proof.user.email_normalized, request);
  return outcome.next;
}

/**
 * The browser a sign-in for `user` happens in, with the device id it will carry once signed in (its device cookie's
 * for this account, or a fresh one): the core learns it in the transaction that opens the session (issue #27's
 * new-browser notice, signin/known-browsers.ts).
 */
export async function signingInBrowser(
  app: FastifyInstance,
  config: Config,
  request: FastifyRequest,
  user: UserRow,
): Promise<Browser> {
  const browser = await app.browserOf(request);
  const { userAgent, country } = browser.client;
  const deviceId = app.deviceIdOf(request, user.email_normalized);
  return { ...browser, seen: { deviceId, userAgent, country, site: requestSite(request, config) } };
}

/**
 * A finished sign-in's session goes to the browser, with the device cookie of the device id the core learnt the
 * browser by (the sign-in's `seen`).
 */
export function handOver(
  app: FastifyInstance,
  exchange: { request: FastifyRequest; reply: FastifyReply },
  session: string,
  user: UserRow,
  browser: Browser,
): void {
  const { request, reply } = exchange;
  app.adoptSession(request, reply, session, true);
  app.trustBrowser(reply, user.email_normalized, request, browser.seen?.deviceId);
}

/**
 * An owed step's call is done: for a sign-in attempt (the call had no session) the core moves it on, and a finished
 * one's session is handed to the browser; answers the next step then. A signed-in person's call answers none.
 */
export async function afterStep(
  app: FastifyInstance,
  db: Db,
  config: Config,
  exchange: { request: FastifyRequest; reply: FastifyReply },
  done: OwedStep,
  user: UserRow,
  added: readonly Amr[] = [],
): Promise<{ next?: NextStep }> {
  const { request } = exchange;
  const attempt = request.attempt;
  if (!attempt) return {};
  const browser = await signingInBrowser(app, config, request, user);
  const outcome = await stepDone(db, attempt, done, user, browser, nextContextOf(request, config), Date.now(), added);
  if (!outcome.ok) throw new ApiError(outcome.refusal.code);
  if (outcome.session) handOver(app, exchange, outcome.session, user, browser);
  return { next: outcome.next };
}
