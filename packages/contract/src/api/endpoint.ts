import type { z } from "zod/mini";

export type HttpMethod = "GET" | "POST" | "PUT" | "DELETE";

/**
 * One gateway endpoint, declared once (STYLE.md §1): the server validates with it, the web client is typed
 * by it. `path` is relative to the gateway base (`/api`); `{name}` marks a path parameter.
 */
export interface Endpoint<Body extends z.ZodMiniType = z.ZodMiniType, Answer extends z.ZodMiniType = z.ZodMiniType> {
  readonly method: HttpMethod;
  readonly path: string;
  readonly body?: Body;
  readonly answer: Answer;
  /** Every status the endpoint may answer with, errors included. */
  readonly statuses: readonly number[];
}

/** Keeps the exact declared type, so `api.login.body` is the login schema, not `ZodType | undefined`. */
export function defineEndpoint<const E extends Endpoint>(endpoint: E): E {
  return endpoint;
}

export type BodyOf<E> = E extends Endpoint<infer B, z.ZodMiniType> ? z.input<B> : never;
export type AnswerOf<E> = E extends Endpoint<z.ZodMiniType, infer A> ? z.infer<A> : never;
