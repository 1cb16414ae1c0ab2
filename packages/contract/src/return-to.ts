/**
 * Return-address policy (spec §4; OWASP ASVS 5.1.5, unvalidated redirects). A return address is honoured only
 * when it parses as an absolute http(s) URL whose host name is exactly one of the allow-listed hosts, or as a
 * path on our own origin. Everything a browser might read differently from us is refused up front.
 */

/** Loopback hosts may use plain http (desktop apps, local development). */
const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);
/** RFC 6761 §6.3: browsers resolve every `*.localhost` name to loopback themselves, as the server's config assumes. */
const LOOPBACK_SUFFIX = ".localhost";

const isLoopback = (host: string) => LOOPBACK.has(host) || host.endsWith(LOOPBACK_SUFFIX);

// Backslashes, whitespace and control characters: browsers rewrite or strip them, so we refuse them.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to match control characters.
const AMBIGUOUS = /[\\\s\u0000-\u001f\u007f]/u;

export interface ReturnPolicy {
  /** Host names (lower case, no port) allowed as return targets. */
  readonly allowedHosts: readonly string[];
  /** Our own origin, e.g. http://localhost:8080: relative paths resolve against it. */
  readonly selfOrigin: string;
}

/** Percent-decoding rounds tried on a path: enough for double encoding ("%252e"), bounded for hostile input. */
const DECODE_ROUNDS = 3;
const ASCII_ESCAPE = /%([0-7][0-9a-f])/giu;

/** Decodes the ASCII escapes only, the ones that can spell "/", "\", "." or a control character; never throws. */
const decodeAscii = (path: string) =>
  path.replace(ASCII_ESCAPE, (_escape, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));

/**
 * Does the path of `url` stay a path on `url`'s origin however it is handed on? Routers and servers pass the
 * pathname alone, some after percent-decoding it: "/..//host" normalises to "//host" and "/%2e%2e%2f/host" decodes
 * to "/..//host", both network-path references that leave the origin. The pathname and each decoding of it,
 * resolved again as a browser resolves a link, must keep the origin and must not start with "//".
 */
function pathStaysOnOrigin(url: URL): boolean {
  let path = url.pathname;
  for (let round = 0; round <= DECODE_ROUNDS; round++) {
    let again: URL;
    try {
      again = new URL(path, url.origin);
    } catch {
      return false;
    }
    if (again.origin !== url.origin || again.pathname.startsWith("//")) return false;
    const decoded = decodeAscii(path);
    if (decoded === path) return true;
    path = decoded;
  }
  return false;
}

/** The normalised absolute URL when `raw` may be used as a return address, else undefined. */
export function checkReturnTo(raw: string | null | undefined, policy: ReturnPolicy): string | undefined {
  if (!raw || raw.length > 2048 || AMBIGUOUS.test(raw)) return undefined;
  // A relative path must be a single-slash path: "//host" and "/\host" are network paths in browsers.
  const relative = raw.startsWith("/");
  if (relative && (raw.startsWith("//") || raw.startsWith("/%2f") || raw.startsWith("/%2F"))) return undefined;
  if (!relative && !/^https?:\/\//iu.test(raw)) return undefined;
  let url: URL;
  try {
    url = new URL(raw, policy.selfOrigin);
  } catch {
    return undefined;
  }
  if (url.username !== "" || url.password !== "") return undefined;
  // ASVS 5.1.5: decided on the normalised URL, not on the text ("/..//host", "/%2e%2e//host", "/a/../..//host").
  if (!pathStaysOnOrigin(url)) return undefined;
  const self = new URL(policy.selfOrigin);
  if (relative) return url.origin === self.origin ? url.href : undefined;
  const host = url.hostname.toLowerCase();
  if (url.protocol === "http:" && !isLoopback(host) && url.origin !== self.origin) return undefined;
  if (url.origin === self.origin) return url.href;
  return policy.allowedHosts.includes(host) ? url.href : undefined;
}

/** The return address when allowed, else `fallback` (the brand's home page). */
export function safeReturnTo(raw: string | null | undefined, policy: ReturnPolicy, fallback: string): string {
  return checkReturnTo(raw, policy) ?? fallback;
}

/** Login heading chosen by the return address (spec §2 "Login"). */
export type LoginHeading = "trial" | "purchase" | "demo" | "default";

export function loginHeadingFor(returnTo: string | null | undefined): LoginHeading {
  if (!returnTo) return "default";
  const value = returnTo.toLowerCase();
  if (/\btry\b|trial/u.test(value)) return "trial";
  if (/store|checkout/u.test(value)) return "purchase";
  if (/demo/u.test(value)) return "demo";
  return "default";
}

/** Registration title by return address (spec §2): "try" → trial; the store or doCheckout → purchase. */
export type RegisterHeading = "trial" | "purchase" | "default";

export function registerHeadingFor(returnTo: string | null | undefined): RegisterHeading {
  const value = (returnTo ?? "").toLowerCase();
  if (value.includes("try")) return "trial";
  if (value.includes("store") || value.includes("docheckout")) return "purchase";
  return "default";
}

/**
 * A return address with an access token in its fragment, as the implicit flow delivered it (RFC 6749 §4.2.2): never
 * in the query, so the site's server and a Referer never see it (issue #10 §3). Used by the legacy flow's callback
 * and by `GET /api/legacy_token`.
 */
export function withTokenFragment(address: string, token: string, expiresIn: number): string {
  const url = new URL(address);
  url.hash = new URLSearchParams({
    access_token: token,
    token_type: "Bearer",
    expires_in: String(expiresIn),
  }).toString();
  return url.href;
}
