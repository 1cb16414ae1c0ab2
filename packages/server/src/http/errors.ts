import { randomUUID } from "node:crypto";
import type { Socket } from "node:net";
import {
  ERROR_STATUS,
  type ErrorAnswer,
  type ErrorCode,
  englishCatalog,
  type FieldError,
  lookup,
  type PasswordPolicyCode,
} from "@gatehouse/contract";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";
import { isDatabaseUnavailable } from "../store/db.ts";

/** A domain error: a stable code, its HTTP status, and optional data (STYLE.md §2). */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly fields: FieldError[] | undefined;
  readonly temporary: boolean | undefined;

  constructor(code: ErrorCode, options: { fields?: FieldError[]; temporary?: boolean } = {}) {
    super(code);
    this.code = code;
    this.fields = options.fields;
    this.temporary = options.temporary;
  }
}

/** The spec §3 error object; `message` is the English wording from the catalog. */
export function errorAnswer(
  code: ErrorCode,
  options: { guid?: string; fields?: FieldError[]; temporary?: boolean } = {},
): ErrorAnswer {
  const guid = options.guid ?? randomUUID();
  const message = lookup(englishCatalog, `errors.${code}`) ?? code;
  return {
    HTTPStatus: ERROR_STATUS[code],
    message,
    guid,
    error_code: code,
    error_message: message,
    error_guid: guid,
    ...(options.temporary === undefined ? {} : { temporary: options.temporary }),
    ...(options.fields ? { fields: options.fields } : {}),
  };
}

/** Sends the error object and logs it with its guid, so a user's "Ref" leads to the log line. */
export function sendError(
  reply: FastifyReply,
  code: ErrorCode,
  options: Parameters<typeof errorAnswer>[1] & { cause?: unknown } = {},
) {
  const { cause, ...rest } = options;
  const body = errorAnswer(code, rest);
  if (code === "service_unavailable")
    // Expected while the database is away: one line each, without a stack (the pool's log says what happened).
    reply.log.warn(
      { guid: body.guid, code, detail: cause instanceof Error ? cause.message : undefined },
      "request deferred",
    );
  else if (body.HTTPStatus >= 500) reply.log.error({ guid: body.guid, code, err: cause }, "request failed");
  else
    reply.log.info(
      { guid: body.guid, code, detail: cause instanceof Error ? cause.message : undefined },
      "request refused",
    );
  return reply.code(body.HTTPStatus).type("application/json; charset=utf-8").send(body);
}

/** Seconds a client is asked to wait when the database is unavailable: about one failover's worth. */
export const RETRY_AFTER_S = 5;

/** Fastify's own client errors, by code, mapped onto ours. */
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "unsupported_media_type",
  FST_ERR_CTP_BODY_TOO_LARGE: "payload_too_large",
  FST_ERR_CTP_EMPTY_JSON_BODY: "invalid_request",
  FST_ERR_CTP_INVALID_JSON_BODY: "invalid_request",
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: "invalid_request",
  FST_ERR_VALIDATION: "invalid_request",
};

function fieldsOf(error: FastifyError): FieldError[] | undefined {
  if (!hasZodFastifySchemaValidationErrors(error)) return undefined;
  return error.validation.map((issue) => {
    const field = issue.instancePath.replace(/^\//u, "").replaceAll("/", ".");
    const text = issue.message ?? "";
    const message = /^(validation|errors)\./u.test(text) ? text : "errors.invalid_request";
    return { field, message };
  });
}

/**
 * Every error leaves as the spec's error object with a guid that is also logged. Client mistakes are 4xx with
 * no internals; anything unexpected is a 500 whose details stay in the log (ASVS 16.5.1: no stack traces out).
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof ApiError) {
      return sendError(reply, error.code, { fields: error.fields, temporary: error.temporary });
    }
    const mapped = error.code ? FASTIFY_CODES[error.code] : undefined;
    const status = error.statusCode ?? 500;
    if (mapped || (status >= 400 && status < 500)) {
      const code: ErrorCode =
        mapped ??
        (status === 429
          ? "rate_limited"
          : status === 404
            ? "not_found"
            : status === 413
              ? "payload_too_large"
              : "invalid_request");
      return sendError(reply, code, { fields: fieldsOf(error), cause: error });
    }
    if (isDatabaseUnavailable(error)) {
      // The database is away (a restart, a failover): nothing is lost by asking again shortly (issue #14). The web
      // app shows its retry screen; a balancer or client may honour Retry-After.
      reply.header("retry-after", String(RETRY_AFTER_S));
      return sendError(reply, "service_unavailable", { temporary: true, cause: error });
    }
    return sendError(reply, "internal_server_error", { cause: error });
  });
}

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (a backslash or a tab in the target, a lower-case
 * method, Content-Length with chunked encoding): still the spec's error object with a guid, never Fastify's
 * bare `{"error":"Bad Request"}`. Written straight to the socket, as Fastify's default handler does (ASVS 16.5.1).
 */
export function clientErrorHandler(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const body = JSON.stringify(errorAnswer("invalid_request"));
  this.log.info({ code: "invalid_request", detail: error.code ?? error.message }, "unparsable request refused");
  if (socket.writable) {
    socket.write(
      [
        "HTTP/1.1 400 Bad Request",
        "Content-Type: application/json; charset=utf-8",
        `Content-Length: ${Buffer.byteLength(body)}`,
        "Cache-Control: no-store",
        "X-Content-Type-Options: nosniff",
        "Content-Security-Policy: default-src 'none'; frame-ancestors 'none'",
        "Connection: close",
        "",
        body,
      ].join("\r\n"),
    );
  }
  socket.destroy(error);
}

/** The password policy's refusal (ASVS 6.2.4/6.2.11) as an error on the password field. */
export function passwordRefused(code: PasswordPolicyCode): ApiError {
  return new ApiError(code, { fields: [{ field: "password", message: `errors.${code}` }] });
}
