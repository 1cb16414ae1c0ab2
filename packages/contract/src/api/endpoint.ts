import type { z } from "zod/mini";
import type { RateLimitName } from "../constants.ts";
import type { OwedStep } from "../sign-in.ts";

export type HttpMethod = "GET" | "POST" | "PUT" | "DELETE";

/**
 * One gateway endpoint, declared once (STYLE.md §1): the server mounts and validates with it (`mount` in the
 * server's http/), the web client is typed by it, tests check its answers against it. `path` is relative to the
 * gateway base (`/api`); `{name}` marks a path parameter.
 */
export interface Endpoint<Body extends z.ZodMiniType = z.ZodMiniType, Answer extends z.ZodMiniType = z.ZodMiniType> {
  readonly method: HttpMethod;
  readonly path: string;
  readonly body?: Body;
  readonly query?: z.ZodMiniType;
  readonly params?: z.ZodMiniType;
  readonly answer: Answer;
  /** Every status the endpoint may answer with, errors included, besides those its declaration implies (statusesOf). */
  readonly statuses: readonly number[];
  /**
   * "required": an account call, answered 401 without a signed-in session. Without it the call is public, open to
   * every session.
   */
  readonly session?: "required";
  /**
   * The owed step this account call belongs to (the password change, the profile): besides a signed-in session, a
   * sign-in attempt that owes this step may make it (issue #24), and only it.
   */
  readonly step?: OwedStep;
  /**
   * Issue #26, step-up: a sensitive account call (the password, the e-mail, the account's deletion, a second factor
   * added or removed). Its session needs a proof within STEP_UP_MS, with a second factor where the account has one;
   * otherwise it is answered 403 `reauthentication_required` and the page asks for that proof
   * (`POST /account/reauthenticate`) before it tries again.
   */
  readonly fresh?: true;
  /** Its per-client-address limit in RATE_LIMITS. */
  readonly rateLimit?: RateLimitName;
}

/** Keeps the exact declared type, so `api.login.body` is the login schema, not `ZodType | undefined`. */
export function defineEndpoint<const E extends Endpoint>(endpoint: E): E {
  return endpoint;
}

/** Statuses every state-changing call may answer: 403 for a missing or stale CSRF token. */
const CSRF_STATUS = 403;
/** A sensitive call without a recent proof (`fresh`): reauthentication_required. */
const FORBIDDEN_STATUS = 403;
const UNAUTHENTICATED_STATUS = 401;
const RATE_LIMITED_STATUS = 429;

/**
 * Every status an endpoint may answer: the declared ones and those its declaration implies (CSRF on a change,
 * 401 on an account call, 429 with a rate limit).
 */
export function statusesOf(endpoint: Endpoint): ReadonlySet<number> {
  const statuses = new Set(endpoint.statuses);
  if (endpoint.method !== "GET") statuses.add(CSRF_STATUS);
  if (endpoint.session === "required") statuses.add(UNAUTHENTICATED_STATUS);
  if (endpoint.fresh) statuses.add(FORBIDDEN_STATUS);
  if (endpoint.rateLimit) statuses.add(RATE_LIMITED_STATUS);
  return statuses;
}

export type BodyOf<E> = E extends Endpoint<infer B, z.ZodMiniType> ? z.input<B> : never;
export type AnswerOf<E> = E extends Endpoint<z.ZodMiniType, infer A> ? z.infer<A> : never;
