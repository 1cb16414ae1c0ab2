import { hash } from "node:crypto";
import type { FastifyRateLimitStore } from "@fastify/rate-limit";
import type { FastifyReply } from "fastify";
import { counts } from "../metrics/counts.ts";
import type { Db } from "../store/db.ts";
import { rateLimitsStore } from "../store/rate-limits.ts";
import { ApiError } from "./errors.ts";

/** Route options for a per-client-address limit (@fastify/rate-limit; the address follows TRUST_PROXY). */
export function limit(rate: { max: number; windowMs: number }) {
  return { rateLimit: { max: rate.max, timeWindow: rate.windowMs } };
}

/** The answer to a request over its limit (the spec's error object, temporary), counted in the metrics (issue #14). */
export function refuseOverLimit(db: Db) {
  return () => {
    counts(db).block("rate_limit");
    return new ApiError("rate_limited", { temporary: true });
  };
}

/**
 * A limit per account, on the same store as the per-address ones (so it holds across nodes and restarts): counts
 * one call of `name` by `userId` and refuses it, 429 `rate_limited` with Retry-After, past `rate.max` in the window.
 * The row holds a hash of the name and the account id.
 */
export async function limitPerAccount(
  db: Db,
  reply: FastifyReply,
  name: string,
  userId: string,
  rate: { max: number; windowMs: number },
): Promise<void> {
  const now = Date.now();
  const { hits, windowEnds } = await rateLimitsStore.hit(db, accountLimitKey(name, userId), now, rate.windowMs);
  if (hits <= rate.max) return;
  counts(db).block("rate_limit");
  reply.header("retry-after", String(Math.max(1, Math.ceil((windowEnds - now) / 1000))));
  throw new ApiError("rate_limited", { temporary: true });
}

/** The rate_limits row of one account's count of `name`. */
export function accountLimitKey(name: string, userId: string): string {
  return hash("sha256", `account|${name}|${userId}`, "hex");
}

type Incr = Parameters<FastifyRateLimitStore["incr"]>;
/** What the plugin really hands a store: its merged options, with the route they apply to. */
type RouteParams = { routeInfo?: { method?: string | string[]; url?: string } };

/**
 * A @fastify/rate-limit store on our database, so a limit holds across every instance and survives a restart
 * (ASVS 2.2.1 anti-automation). Each limited route counts apart; rows hold a hash of route and client address,
 * never the address itself, and the sweeper removes ended windows.
 */
export function databaseRateLimitStore(db: Db) {
  return class DatabaseRateLimitStore implements FastifyRateLimitStore {
    readonly route: string;

    constructor(params: RouteParams) {
      const method = params.routeInfo?.method;
      this.route = `${Array.isArray(method) ? method.join(",") : (method ?? "")} ${params.routeInfo?.url ?? ""}`;
    }

    incr(key: Incr[0], callback: Incr[1], timeWindow: Incr[2]): void {
      rateLimitsStore.hit(db, hash("sha256", `${this.route}|${key}`, "hex"), Date.now(), timeWindow).then(
        ({ hits, windowEnds }) => callback(null, { current: hits, ttl: Math.max(0, windowEnds - Date.now()) }),
        (error: Error) => callback(error),
      );
    }

    child(params: unknown): FastifyRateLimitStore {
      return new DatabaseRateLimitStore(params as RouteParams);
    }
  };
}
