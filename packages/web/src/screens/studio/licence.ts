import { LICENCE_HELPER } from "@gatehouse/contract";

/**
 * Licence activation in the person's local helper (spec §2 "Sketching-tool studio sign-in", §7, §8, §9; issue
 * #13). Plain functions, so the rules can be read and tested apart from the page: the address, the browser that
 * cannot make the call, what one answer means, and the tries with their timeout and waits.
 */

/** The query parameter the helper reads the token from, and the one asking it to answer rather than redirect. */
const TOKEN_PARAM = "access_token";
const NO_REDIRECT_PARAM = "noredirect";

/**
 * The helper's activation address. `manual`: the link a person opens themselves (Safari), without `noredirect`, so
 * the helper answers the browser with a page of its own.
 */
export function activationUrl(helperUrl: string, token: string, manual = false): string {
  const url = new URL(LICENCE_HELPER.activatePath, helperUrl);
  url.searchParams.set(TOKEN_PARAM, token);
  if (!manual) url.searchParams.set(NO_REDIRECT_PARAM, "1");
  return url.href;
}

/**
 * Safari blocks a secure page's calls to a plain-http local address (mixed content and its local-network
 * protections), so the page offers a link instead of calling. Told by the user agent: Safari's token without
 * those of the browsers that also carry it (Chrome, Chromium, Edge, Android's browsers, Chrome and Firefox on iOS).
 */
export function blocksLocalHelper(userAgent: string): boolean {
  // No word boundary before the names: headless Chromium says "HeadlessChrome".
  return /\bSafari\//u.test(userAgent) && !/(?:Chrome|Chromium|Edg|Android|CriOS|FxiOS)/u.test(userAgent);
}

/** What one try came to. */
export type TryResult =
  | { kind: "activated" }
  | { kind: "temporary" }
  | { kind: "failed"; message: string }
  | { kind: "unreachable" };

/** The English prefix of spec §8, which a helper may already put in its message; the page says it in its language. */
const SPEC_PREFIX = /^\s*License server activation failed:\s*/iu;
/** A helper's message is shown as text; a runaway one is cut. */
const MESSAGE_MAX = 300;

function messageOf(body: unknown, status: number): string {
  const error = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
  const text = [error.message, error.error_message].find((value) => typeof value === "string" && value.trim());
  const message = typeof text === "string" ? text.replace(SPEC_PREFIX, "").trim() : "";
  return (message || `HTTP ${status}`).slice(0, MESSAGE_MAX);
}

/**
 * One answer of the helper (ARCHITECTURE.md "Licence helper"): a 2xx means activated; an error answer is the spec's
 * error object (§3), with `temporary: true` for a failure worth waiting for; anything else is a failure.
 */
export function classifyAnswer(status: number, body: unknown): TryResult {
  if (status >= 200 && status < 300) return { kind: "activated" };
  if (typeof body === "object" && body !== null && (body as Record<string, unknown>).temporary === true) {
    return { kind: "temporary" };
  }
  return { kind: "failed", message: messageOf(body, status) };
}

/** How the activation ended. `busy`: every try was told to wait; `unreachable`: no answer came in time. */
export type Outcome =
  | { kind: "activated" }
  | { kind: "busy" }
  | { kind: "failed"; message: string }
  | { kind: "unreachable" };

/** Spec §9: the first try and 4 more, 2 s apart, each given 10 s. */
export const TRIES = LICENCE_HELPER.retries + 1;

/** Whether a try's result is worth another try (a temporary failure, or no answer). */
export const worthRetrying = (result: TryResult) => result.kind === "temporary" || result.kind === "unreachable";

export interface ActivationDeps {
  /** One call to the helper, given up after `LICENCE_HELPER.timeoutMs`. */
  attempt: (url: string) => Promise<TryResult>;
  wait: (ms: number) => Promise<void>;
  /** Each try's result as it comes (the page shows the wait state on a temporary one). */
  onTry?: (result: TryResult, tryNumber: number) => void;
}

/** Activates the licence: tries until one settles it, or the tries run out (spec §9). */
export async function activate(helperUrl: string, token: string, deps: ActivationDeps): Promise<Outcome> {
  const url = activationUrl(helperUrl, token);
  let last: TryResult = { kind: "unreachable" };
  for (let attempt = 1; attempt <= TRIES; attempt++) {
    if (attempt > 1) await deps.wait(LICENCE_HELPER.retryDelayMs);
    last = await deps.attempt(url);
    deps.onTry?.(last, attempt);
    if (!worthRetrying(last)) break;
  }
  if (last.kind === "temporary") return { kind: "busy" };
  return last;
}

/**
 * One call from the browser: no credentials (the helper is another origin and needs none of ours), no Referer
 * (the pages send none), given up after the timeout (spec §9).
 */
export async function callHelper(url: string): Promise<TryResult> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), LICENCE_HELPER.timeoutMs);
  try {
    const response = await fetch(url, {
      credentials: "omit",
      cache: "no-store",
      referrerPolicy: "no-referrer",
      signal: controller.signal,
    });
    const body: unknown = await response.json().catch(() => undefined);
    return classifyAnswer(response.status, body);
  } catch {
    // Nothing listening, a refused connection, or no answer within the timeout: the same for the person.
    return { kind: "unreachable" };
  } finally {
    clearTimeout(timer);
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
