import type { ErrorAnswer } from "@gatehouse/contract";

/** A 4xx answer with the spec's error object: thrown to the screen that made the call (spec §8). */
export class ApiError extends Error {
  readonly status: number;
  readonly answer: ErrorAnswer;
  constructor(answer: ErrorAnswer) {
    super(answer.message);
    this.status = answer.HTTPStatus;
    this.answer = answer;
  }
  get code(): string {
    return this.answer.error_code;
  }
}

/** A 5xx answer: the error screen with retry takes over (spec §8). */
export class ServerError extends Error {
  readonly status: number;
  readonly guid: string | undefined;
  constructor(status: number, guid?: string) {
    super(`server error ${status}`);
    this.status = status;
    this.guid = guid;
  }
}

/** No answer at all: offline, or the 30 s timeout ran out. */
export class NetworkError extends Error {
  readonly kind: "offline" | "timeout";
  constructor(kind: "offline" | "timeout") {
    super(kind);
    this.kind = kind;
  }
}

/**
 * An answer that is not the error object (a proxy's HTML page, say): the screen shows its status and a reference,
 * never the body (issue #25: a page of HTML is no words for a person). The reference is the server's guid when the
 * body carries one, else one made here; the report sent to error reporting carries it and the start of the body.
 */
export class UnexpectedAnswerError extends Error {
  readonly status: number;
  readonly body: string;
  readonly guid: string;
  constructor(status: number, body: string, guid?: string) {
    const reference = guid ?? crypto.randomUUID();
    super(`unexpected answer ${status} (ref ${reference}): ${body.slice(0, 300)}`);
    this.status = status;
    this.body = body.slice(0, 300);
    this.guid = reference;
  }
}

/** Failures that replace the screen with "Oops... what a mess." and a retry. */
export function isScreenFailure(error: unknown): boolean {
  return error instanceof ServerError || error instanceof NetworkError || error instanceof UnexpectedAnswerError;
}

/** The i18n key that says what went wrong: the error code's words, or the generic unexpected-error text. */
export function errorKey(error: unknown): string {
  return error instanceof ApiError ? `errors.${error.code}` : "network.unexpected";
}

/** Puts the server's field errors (message keys) on a form; true when there were any. */
export function applyFieldErrors(error: unknown, setError: (field: string, message: string) => void): boolean {
  const fields = error instanceof ApiError ? (error.answer.fields ?? []) : [];
  for (const field of fields) setError(field.field, field.message);
  return fields.length > 0;
}
