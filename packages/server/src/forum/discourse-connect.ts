import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * DiscourseConnect, the provider's side (issue #13; /work notes "discourse-connect.md": discourse/discourse
 * `lib/discourse_connect_base.rb`). The forum sends `sso` (Base64 of `nonce=…&return_sso_url=…`) and `sig` (hex
 * HMAC-SHA256 of that Base64 text, with the shared secret); we answer the same way. Plain functions, no HTTP.
 */

/** A DiscourseConnect request whose signature and payload were checked. */
export interface DiscourseRequest {
  nonce: string;
  /** The forum's address to send the browser back to, already checked to be on the forum's origin. */
  returnUrl: URL;
}

export type DiscourseRefusal =
  | "discourse_signature_invalid"
  | "discourse_payload_invalid"
  | "discourse_return_url_invalid";

/** Lower-case hex HMAC-SHA256 of the Base64 text exactly as it travels. */
export function signPayload(secret: string, payload: string): string {
  return createHmac("sha256", secret).update(payload, "utf8").digest("hex");
}

/** Compares the forum's `sig` with ours in constant time (ASVS 11.5.x); a different length is refused first. */
function signatureMatches(secret: string, payload: string, sig: string): boolean {
  const expected = Buffer.from(signPayload(secret, payload), "utf8");
  const given = Buffer.from(sig, "utf8");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Discourse's Base64 alphabet, with the line breaks Ruby's `Base64.encode64` puts every 60 characters. */
const BASE64_TEXT = /^[A-Za-z0-9+/\r\n]*={0,2}[\r\n]*$/u;
const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/u;
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Strict Base64 (no stray characters, right padding) of UTF-8 text; undefined for anything else. */
function decodeBase64Text(text: string): string | undefined {
  if (!BASE64_TEXT.test(text)) return undefined;
  const joined = text.replace(/[\r\n]/gu, "");
  if (!STRICT_BASE64.test(joined)) return undefined;
  try {
    return utf8.decode(Buffer.from(joined, "base64"));
  } catch {
    return undefined;
  }
}

/** A nonce is a short token (Discourse's are 32 hex digits); anything long or odd is not the forum's. */
const NONCE = /^[\x21-\x7e]{1,128}$/u;

/** The value of a field given exactly once, else undefined (a doubled field is not the forum's request). */
function single(query: URLSearchParams, name: string): string | undefined {
  const values = query.getAll(name);
  return values.length === 1 ? values[0] : undefined;
}

/**
 * Checks a DiscourseConnect request: the signature first (nothing of an unsigned payload is read), then strict
 * Base64, the query, a nonce, and a `return_sso_url` on the forum's origin exactly — scheme, host and port — with
 * no user part (ASVS 5.1.5: `https://forum.example@evil.example/` is evil.example's address).
 */
export function readRequest(
  settings: { secret: string; origin: string },
  sso: string,
  sig: string,
): { ok: true; request: DiscourseRequest } | { ok: false; refusal: DiscourseRefusal } {
  if (!signatureMatches(settings.secret, sso, sig)) return { ok: false, refusal: "discourse_signature_invalid" };
  const decoded = decodeBase64Text(sso);
  if (decoded === undefined) return { ok: false, refusal: "discourse_payload_invalid" };
  const query = new URLSearchParams(decoded);
  const nonce = single(query, "nonce");
  const returnSsoUrl = single(query, "return_sso_url");
  if (!nonce || !NONCE.test(nonce) || !returnSsoUrl) return { ok: false, refusal: "discourse_payload_invalid" };
  const returnUrl = forumAddress(returnSsoUrl, settings.origin);
  if (!returnUrl) return { ok: false, refusal: "discourse_return_url_invalid" };
  return { ok: true, request: { nonce, returnUrl } };
}

// Backslashes, whitespace and control characters: browsers rewrite or strip them, so they are refused up front.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to match control characters.
const AMBIGUOUS = /[\\\s\u0000-\u001f\u007f]/u;

/** The address when it is an absolute URL on exactly the forum's origin, else undefined. */
function forumAddress(raw: string, origin: string): URL | undefined {
  if (raw.length > 2048 || AMBIGUOUS.test(raw) || !/^https?:\/\//iu.test(raw)) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (url.username !== "" || url.password !== "" || url.origin !== origin) return undefined;
  return url;
}

/** What we tell the forum about the person (the answer's fields; booleans are the strings "true"/"false"). */
export interface DiscourseUser {
  externalId: string;
  email: string;
  name: string;
  username: string;
  /** The address is not proven: the forum must not match it to an existing forum user nor trust it. */
  requireActivation: boolean;
}

/** The forum's address with our signed answer: `sso` (strict Base64 of the answer's query) and its `sig`. */
export function answerUrl(secret: string, request: DiscourseRequest, user: DiscourseUser): string {
  const fields = new URLSearchParams({
    nonce: request.nonce,
    email: user.email,
    external_id: user.externalId,
    name: user.name,
    username: user.username,
  });
  // Discourse matches a forum user by address unless told the address is unproven (notes: never send one without).
  if (user.requireActivation) fields.set("require_activation", "true");
  const sso = Buffer.from(fields.toString(), "utf8").toString("base64");
  const url = new URL(request.returnUrl);
  url.searchParams.append("sso", sso);
  url.searchParams.append("sig", signPayload(secret, sso));
  return url.href;
}

/** Discourse's usernames: letters, digits, `_`, `.` and `-`, 3 to 20 characters, starting and ending alphanumeric. */
const USERNAME_MAX = 20;
const USERNAME_MIN = 3;

/**
 * A forum-safe username suggestion from the person's name, else the address's local part: accents dropped, other
 * characters made `_`, trimmed to Discourse's default length. The forum makes it unique itself (its suggester).
 */
export function suggestUsername(name: string, email: string): string {
  const clean = (text: string) =>
    text
      .normalize("NFKD")
      .replace(/\p{M}/gu, "")
      .replace(/[^A-Za-z0-9_.-]+/gu, "_")
      .replace(/[_.-]{2,}/gu, "_")
      .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/gu, "")
      .slice(0, USERNAME_MAX)
      .replace(/[^A-Za-z0-9]+$/u, "");
  const fromName = clean(name);
  if (fromName.length >= USERNAME_MIN) return fromName;
  const fromAddress = clean(email.split("@")[0] ?? "");
  if (fromAddress.length >= USERNAME_MIN) return fromAddress;
  return `user_${(fromName || fromAddress).slice(0, USERNAME_MAX - 5)}`.replace(/_$/u, "") || "user";
}
