import { type Endpoint, RATE_LIMITS } from "@gatehouse/contract";
import type { FastifyInstance, FastifyReply, FastifyRequest, preValidationAsyncHookHandler } from "fastify";
import type { z } from "zod/mini";
import { API_BASE } from "./api-paths.ts";
import { sendError } from "./errors.ts";
import { limit } from "./rate-limit.ts";

type Output<S> = S extends z.ZodMiniType ? z.output<S> : undefined;

/** The request a handler of an endpoint gets: body, query and params as the declaration's schemas parsed them. */
export type EndpointRequest<E extends Endpoint> = FastifyRequest<{
  Body: Output<E["body"]>;
  Querystring: Output<E["query"]>;
  Params: Output<E["params"]>;
}>;

/** A handler answers the declared answer (the serializer checks it), or sends its own reply. */
export type EndpointHandler<E extends Endpoint> = (
  request: EndpointRequest<E>,
  reply: FastifyReply,
) => Promise<z.input<E["answer"]> | FastifyReply>;

/** Route options an endpoint may add to what its declaration says. */
export interface MountOptions {
  /** false: the answer is small or sent already compressed, so the compression hooks are skipped (issue #9). */
  compress?: false;
}

/** Fastify's form of a contract path: `/account/recover/{code}` → `/api/account/recover/:code`. */
export function routePath(endpoint: Endpoint): string {
  return `${API_BASE}${endpoint.path.replace(/\{(\w+)\}/gu, ":$1")}`;
}

const SUCCESS = (status: number) => status >= 200 && status < 300 && status !== 204;

/**
 * Mounts an endpoint from its contract declaration (STYLE.md §1): method and path, body, query and params
 * validation, the answer's serializer for its success statuses (an answer that does not match is a 500, never a
 * leak of undeclared fields), its rate limit, and its session rule. The session guard and CSRF check come from
 * http/session.ts, which every /api route gets.
 */
export function mount<E extends Endpoint>(
  app: FastifyInstance,
  endpoint: E,
  handler: EndpointHandler<E>,
  options: MountOptions = {},
): void {
  const response = Object.fromEntries(endpoint.statuses.filter(SUCCESS).map((status) => [status, endpoint.answer]));
  app.route({
    method: endpoint.method,
    url: routePath(endpoint),
    schema: {
      ...(endpoint.body ? { body: endpoint.body } : {}),
      ...(endpoint.query ? { querystring: endpoint.query } : {}),
      ...(endpoint.params ? { params: endpoint.params } : {}),
      response,
    },
    config: endpoint.rateLimit ? limit(RATE_LIMITS[endpoint.rateLimit]) : {},
    ...(endpoint.session === "required" ? { preValidation: sessionRule(endpoint) } : {}),
    ...options,
    handler: handler as unknown as (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
  });
}

/**
 * An account call needs a signed-in session (401 otherwise, spec §6): ASVS 8.2.1, access is decided on the server
 * for every call, whatever a client skips. The call of an owed step (the password change, the profile) is open too
 * to the browser's sign-in attempt that owes that very step (issue #24), and to no other: an attempt is not a session.
 * A sensitive call (`fresh`) of a session needs a recent proof (issue #26 step-up, factors/step-up.ts); an attempt's
 * proof was just given, so an owed step needs none.
 */
function sessionRule(endpoint: Endpoint): preValidationAsyncHookHandler {
  return async function checkSession(this: FastifyInstance, request, reply) {
    const session = request.session.user;
    if (session) {
      if (!endpoint.fresh || (await this.hasFreshProof(request))) return;
      // The same person signing in again in this browser (prompt=login) and owing this step has just proven who they
      // are: the attempt makes the change and replaces the stale session, as a step does.
      if (await takeOwingAttempt(this, request, endpoint, session.user_id)) return;
      return sendError(reply, "reauthentication_required");
    }
    if (await takeOwingAttempt(this, request, endpoint)) return;
    return sendError(reply, "not_authenticated");
  };
}

/** The browser's sign-in attempt that owes this endpoint's step (of `userId` when given) becomes the request's. */
async function takeOwingAttempt(
  app: FastifyInstance,
  request: FastifyRequest,
  endpoint: Endpoint,
  userId?: string,
): Promise<boolean> {
  if (!endpoint.step) return false;
  const attempt = await app.attemptOf(request);
  if (attempt?.owes !== endpoint.step || (userId !== undefined && attempt.user_id !== userId)) return false;
  request.attempt = attempt;
  return true;
}
