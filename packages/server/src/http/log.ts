import { type FastifyReply, type FastifyRequest, LogController } from "fastify";

/**
 * Query parameters that carry a secret: mailed codes, and the tokens of the sign-in flows — the provider's too:
 * the ID token a site hands back at end-session, and a signed request object (issue #10 §2).
 */
const SECRET_PARAMS = new Set(["code", "access_token", "id_token", "token", "id_token_hint", "request"]);
const MASK = "REDACTED";

/** The code-status calls' paths: a reset link's and a deletion link's code. */
const CODE_IN_PATH = /^(\/api\/account\/(?:recover|delete)\/)(?!request$)[^/]+/u;

/**
 * A request URL fit for the log: mailed codes travel in the query of the pages the links open, and in the path of
 * the code-status calls (a reset link's, a deletion link's: not the deletion's own `request` call); they are live
 * credentials until used, so the log never holds them (ASVS 16.2.5).
 */
export function redactUrl(url: string): string {
  const q = url.indexOf("?");
  const path = (q === -1 ? url : url.slice(0, q)).replace(CODE_IN_PATH, `$1${MASK}`);
  if (q === -1) return path;
  const query = new URLSearchParams(url.slice(q + 1));
  for (const key of new Set(query.keys())) if (SECRET_PARAMS.has(key)) query.set(key, MASK);
  return `${path}?${query}`;
}

/** Pino serializer for requests: Fastify's default fields, with the URL redacted. */
export function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    // The URL as it arrived: the provider's mount strips its /oidc prefix from request.url.
    url: redactUrl(request.originalUrl),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/**
 * Development's request log: one line per answered request ("GET /account/recover 200 4 ms", codes masked)
 * instead of Fastify's "incoming request" and "request completed" pair, so `npm start` stays readable.
 */
export class CompactRequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = `${request.method} ${redactUrl(request.originalUrl)} ${reply.statusCode} ${reply.elapsedTime.toFixed(0)} ms`;
    if (error) request.log.error({ err: error }, line);
    else request.log.info(line);
  }
}
