import { checkReturnTo, type ReturnPolicy, routeUrl, safeReturnTo } from "@gatehouse/contract";

/** Spec §4: a signed-in visitor on the login page goes to return_to, or to edit account. */
export function destinationWhenSignedIn(returnTo: string | null, policy: ReturnPolicy): string {
  return safeReturnTo(returnTo, policy, routeUrl("ACCOUNT_EDIT"));
}

/** The gateway's own paths on every host (ARCHITECTURE.md): served by the server, never by the web app. */
const GATEWAY_PATH = /^\/api(?:\/|$)/iu;

/**
 * Same-origin destinations go through the router; others leave the app. The router is handed the part after our
 * origin, so a destination whose path would read as another host there ("http://self//host" → "//host") is not
 * internal: the browser loads the absolute address instead of the router hanging on it (ASVS 5.1.5). The
 * gateway's navigations (`/api/studio/complete`, `/api/legacy_token`: redirects) are no screen of the app either:
 * the browser loads them.
 */
export function isInternal(destination: string, selfOrigin: string): boolean {
  const url = new URL(destination, selfOrigin);
  if (url.origin !== selfOrigin || GATEWAY_PATH.test(url.pathname)) return false;
  return new URL(`${url.pathname}${url.search}${url.hash}`, selfOrigin).href === url.href;
}

/**
 * The return address when it belongs to a legacy site (HostSettings.tokenOrigins), whose token the legacy flow of
 * spec §4 fetches on the way (issue #10 §3); undefined for every other address.
 */
export function legacyReturn(
  returnTo: string | null,
  policy: ReturnPolicy,
  tokenOrigins: readonly string[],
): string | undefined {
  const address = checkReturnTo(returnTo, policy);
  return address && tokenOrigins.includes(new URL(address).origin) ? address : undefined;
}
