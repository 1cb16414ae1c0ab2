import { hash, timingSafeEqual } from "node:crypto";
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
  type onResponseHookHandler,
} from "fastify";
import type pg from "pg";
import { ConfigError, type MetricsConfig } from "../config.ts";
import { countOn } from "../metrics/counts.ts";
import { createMetrics, type Metrics } from "../metrics/registry.ts";
import type { Db } from "../store/db.ts";
import { clientErrorHandler, registerErrorHandling, sendError } from "./errors.ts";

export const METRICS_PATH = "/metrics";
/** The route label of requests no route matched: never the raw URL, so the label's values stay few. */
const UNMATCHED = "unmatched";

/**
 * Issue #14, docs/deployment.md "Metrics": builds this app's metrics, counts every answered request, and serves the metrics at
 * /metrics on the main port to METRICS_TOKEN's bearer, and/or on METRICS_PORT alone. Never public (ASVS 13.4.5).
 * Called before any route is declared: each route's labels are fixed as it is declared.
 */
export async function serveMetrics(
  app: FastifyInstance,
  options: { settings: MetricsConfig; db: Db; pool?: pg.Pool },
): Promise<Metrics> {
  const { settings, db, pool } = options;
  const metrics = createMetrics({ db, pool });
  const stopCounting = countOn(db, metrics.counts);
  countRequests(app, metrics);
  if (settings.token !== undefined) {
    const token = settings.token;
    await app.register(async (scope) => {
      scope.get(METRICS_PATH, (request, reply) => answerWithToken(metrics, token, request, reply));
    });
  }
  const apart = settings.port === undefined ? undefined : await listenApart(app, metrics, settings.host, settings.port);
  app.addHook("onClose", async () => {
    stopCounting();
    await apart?.close();
  });
  return metrics;
}

/**
 * Every answered request, counted and timed by its route's pattern. Each route gets a response hook of its own with
 * its pattern bound when it is declared, so the hot path derives no label (Fastify's `request.routeOptions` builds
 * an object per call); only the method and the status are the request's. Requests no route matched count as
 * `unmatched`. `reply.elapsedTime` is Fastify's own clock, from the request's arrival to the answer's last byte.
 */
function countRequests(app: FastifyInstance, metrics: Metrics): void {
  const record = (request: FastifyRequest, reply: FastifyReply, route: string) => {
    metrics.requests.inc({ method: request.method, route, status: reply.statusCode });
    metrics.durations.observe({ method: request.method, route }, reply.elapsedTime / 1000);
  };
  app.addHook("onRoute", (route) => {
    const url = route.url;
    const counted: onResponseHookHandler = (request, reply, done) => {
      record(request, reply, url);
      done();
    };
    route.onResponse = [...(route.onResponse === undefined ? [] : [route.onResponse].flat()), counted];
  });
  app.addHook("onResponse", (request, reply, done) => {
    if (request.is404) record(request, reply, UNMATCHED);
    done();
  });
}

/**
 * /metrics on the main port: only for `Authorization: Bearer <METRICS_TOKEN>`, compared in constant time over
 * SHA-256 digests (equal lengths whatever is sent, so neither the token's bytes nor its length leak through timing).
 * Anyone else gets 401 with the spec's error object and the RFC 6750 challenge (docs/decisions.md).
 */
async function answerWithToken(metrics: Metrics, token: string, request: FastifyRequest, reply: FastifyReply) {
  const presented = /^Bearer +(\S+) *$/iu.exec(request.headers.authorization ?? "")?.[1];
  if (presented === undefined || !timingSafeEqual(digest(presented), digest(token))) {
    reply.header("www-authenticate", 'Bearer realm="metrics"');
    return sendError(reply, "not_authenticated");
  }
  return answerMetrics(metrics, reply);
}

function digest(value: string): Buffer {
  return hash("sha256", value, "buffer");
}

async function answerMetrics(metrics: Metrics, reply: FastifyReply) {
  const text = await metrics.registry.metrics();
  return reply
    .header("cache-control", "no-store")
    .header("x-content-type-options", "nosniff")
    .type(metrics.registry.contentType)
    .send(text);
}

/**
 * METRICS_PORT: a listener of its own that serves /metrics and nothing else, without a token: the port is meant
 * for the scraper's network only and never published through the load balancer (docs/deployment.md "Metrics"). It answers
 * unknown paths and malformed requests with the spec's error object, as the main port does.
 */
async function listenApart(app: FastifyInstance, metrics: Metrics, host: string, port: number) {
  const server = Fastify({
    loggerInstance: app.log,
    // A scrape every few seconds is no event worth a log line; refusals still log theirs (sendError).
    logController: new LogController({ disableRequestLogging: true }),
    frameworkErrors: (error, _request, reply) => sendError(reply, "invalid_request", { cause: error }),
    clientErrorHandler,
  });
  registerErrorHandling(server);
  server.get(METRICS_PATH, (_request, reply) => answerMetrics(metrics, reply));
  server.setNotFoundHandler((_request, reply) => sendError(reply, "not_found"));
  try {
    await server.listen({ host, port });
  } catch (error) {
    await server.close();
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new ConfigError(`Invalid configuration:\n  METRICS_PORT: cannot listen on ${host}:${port} (${reason})`);
  }
  return server;
}
