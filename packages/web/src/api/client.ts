import {
  type AnswerOf,
  type BodyOf,
  type Endpoint,
  ErrorAnswer,
  REQUEST_TIMEOUT_MS,
  UNREPORTED_STATUSES,
} from "@gatehouse/contract";
import { ApiError, NetworkError, ServerError, UnexpectedAnswerError } from "./errors.ts";

/**
 * 403 answers that are a screen's business (spec §8 "not active", disabled; a site's sign-in that needs the person's
 * consent first, issue #10): thrown to the caller. Any other
 * 403 means the session or its CSRF token went stale, and the page reloads to get fresh ones.
 */
const HANDLED_FORBIDDEN = new Set([
  "user_not_active",
  "user_disabled",
  "consent_required",
  "studio_token_mismatch",
  // Issue #26: the step-up (ApiClientOptions.stepUp) asks for a fresh proof, then the call goes again.
  "reauthentication_required",
]);

export interface ApiClientOptions {
  baseUrl: string;
  /** The page's brand, sent so mail and accounts get it (the server trusts it outside production only). */
  brand?: string;
  language?: () => string;
  fetch?: typeof fetch;
  timeoutMs?: number;
  reload?: () => void;
  report?: (error: Error) => void;
  online?: () => boolean;
  /**
   * Issue #26 step-up: a call answered 403 reauthentication_required asks the person to confirm it's them (the
   * app's dialog); true when a fresh proof was given, and the call then goes once more. Absent or false: the
   * ApiError reaches the screen as usual.
   */
  stepUp?: () => Promise<boolean>;
}

export interface CallOptions<E> {
  body?: BodyOf<E>;
  params?: Record<string, string>;
  /** The query string of a GET (issue #13: the forum's request, handed on as it came). */
  query?: Record<string, string>;
  /** A bearer token the call presents (issue #13: the studio's licence token, checked against the session). */
  bearer?: string;
}

/** The typed gateway client: credentials, X-CSRF-Token, 30 s timeout, and the error mapping of spec §8. */
/** How long a failed connection waits for the browser's own word on being offline (navigator.onLine). */
const OFFLINE_SETTLE_MS = 250;

export function createApiClient(options: ApiClientOptions) {
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const timeoutMs = options.timeoutMs ?? REQUEST_TIMEOUT_MS;
  const reload = options.reload ?? (() => window.location.reload());
  const report = options.report ?? (() => {});
  const online = options.online ?? (() => navigator.onLine);
  let csrf: string | undefined;

  async function call<E extends Endpoint>(endpoint: E, callOptions: CallOptions<E> = {}): Promise<AnswerOf<E>> {
    try {
      return await send(endpoint, callOptions);
    } catch (error) {
      // One retry only: a proof that the server still finds stale again is the screen's to show, not a loop.
      if (!(error instanceof ApiError && error.code === "reauthentication_required" && options.stepUp)) throw error;
      if (!(await options.stepUp())) throw error;
      return send(endpoint, callOptions);
    }
  }

  async function send<E extends Endpoint>(endpoint: E, callOptions: CallOptions<E>): Promise<AnswerOf<E>> {
    // A state-changing call needs the session's CSRF token; pages that skip the session fetch it first.
    if (endpoint.method !== "GET" && !csrf) await fetchCsrfToken();
    let path = endpoint.path;
    for (const [name, value] of Object.entries(callOptions.params ?? {})) {
      path = path.replace(`{${name}}`, encodeURIComponent(value));
    }
    if (callOptions.query) path += `?${new URLSearchParams(callOptions.query)}`;
    const headers: Record<string, string> = { accept: "application/json" };
    if (csrf) headers["x-csrf-token"] = csrf;
    if (options.brand) headers["x-gatehouse-theme"] = options.brand;
    const language = options.language?.();
    if (language) headers["accept-language"] = language;
    if (callOptions.body !== undefined) headers["content-type"] = "application/json";
    if (callOptions.bearer) headers.authorization = `Bearer ${callOptions.bearer}`;

    let response: Response;
    try {
      response = await doFetch(`${options.baseUrl}${path}`, {
        method: endpoint.method,
        headers,
        credentials: "include",
        body: callOptions.body === undefined ? undefined : JSON.stringify(callOptions.body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const timedOut = (error as Error).name === "AbortError" || (error as Error).name === "TimeoutError";
      // A connection that failed at once: the browser may learn that it is offline a moment after the request did,
      // so it is asked again after that moment before the screen says which it was.
      if (!timedOut && online()) await new Promise((resolve) => setTimeout(resolve, OFFLINE_SETTLE_MS));
      const failure = new NetworkError(online() ? "timeout" : "offline");
      if (!timedOut && online()) report(failure);
      throw failure;
    }
    csrf = response.headers.get("x-csrf-token") ?? csrf;

    const text = await response.text();
    // 204 No Content (a visitor's session check) carries no body: it answers null.
    const json = response.status === 204 ? null : parseJson(text);
    if (response.ok) {
      const answer = endpoint.answer.safeParse(json);
      if (!answer.success) throw fail(unexpected(response.status, text, json), response.status);
      return answer.data as AnswerOf<E>;
    }
    const error = ErrorAnswer.safeParse(json);
    if (!error.success) throw fail(unexpected(response.status, text, json), response.status);
    if (response.status >= 500) throw fail(new ServerError(response.status, error.data.guid), response.status);
    if (response.status === 403 && !HANDLED_FORBIDDEN.has(error.data.error_code)) {
      reload();
    }
    throw fail(new ApiError(error.data), response.status);
  }

  async function fetchCsrfToken(): Promise<void> {
    try {
      const response = await doFetch(`${options.baseUrl}/session`, {
        headers: { accept: "application/json" },
        credentials: "include",
        signal: AbortSignal.timeout(timeoutMs),
      });
      csrf = response.headers.get("x-csrf-token") ?? csrf;
    } catch {
      // The call itself will fail and say why.
    }
  }

  /** Spec §8: 401, 403, 404 and 405 are not sent to error reporting. */
  function fail<T extends Error>(error: T, status: number): T {
    if (!UNREPORTED_STATUSES.has(status)) report(error);
    return error;
  }

  return { call, csrfToken: () => csrf };
}

export type ApiClient = ReturnType<typeof createApiClient>;

/** An answer that is not ours, with the server's reference when its body names one. */
function unexpected(status: number, text: string, json: unknown): UnexpectedAnswerError {
  const guid = (json as { guid?: unknown } | null | undefined)?.guid;
  return new UnexpectedAnswerError(status, text, typeof guid === "string" && guid ? guid : undefined);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
