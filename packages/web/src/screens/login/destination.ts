import {
  type AnswerOf,
  type api,
  type Brand,
  checkReturnTo,
  type RequiredStep,
  type ReturnPolicy,
  routeUrl,
  safeReturnTo,
  stepUrl,
} from "@gatehouse/contract";

/**
 * Where a successful sign-in continues (spec §4): a required password update first, then a required profile
 * update, then the return address when its host is allowed, else the brand's landing page.
 */
export function destinationAfterSignIn(
  answer: AnswerOf<typeof api.login>,
  returnTo: string | null,
  policy: ReturnPolicy,
  brand: Brand,
): string {
  const allowedReturn = safeReturnTo(returnTo, policy, "") || undefined;
  return owedStepAfterSignIn(answer, allowedReturn) ?? allowedReturn ?? landingPage(brand);
}

/**
 * The step a sign-in's answer owes (spec §4: a required password update first, then a required profile update),
 * keeping `destination` as its return address; undefined when none is owed.
 */
export function owedStepAfterSignIn(answer: AnswerOf<typeof api.login>, destination?: string): string | undefined {
  if (answer.RequiredPasswordUpdate) return stepUrl("password_change", destination);
  if (answer.RequiredProfileUpdate) return stepUrl("profile_update", destination);
  return undefined;
}

/**
 * Spec §4: a signed-in visitor on the login page goes to return_to, or to edit account; one who owes a step goes
 * to that step first (issue #10 §1), keeping the return address for after it.
 */
export function destinationWhenSignedIn(
  returnTo: string | null,
  policy: ReturnPolicy,
  step: RequiredStep | null = null,
): string {
  if (step) return stepUrl(step, safeReturnTo(returnTo, policy, "") || undefined);
  return safeReturnTo(returnTo, policy, routeUrl("ACCOUNT_EDIT"));
}

/** The visualisation brand confirms on its own success page; the others go home. */
export function landingPage(brand: Brand): string {
  return brand.traits.authenticationCompletePage ? routeUrl("LOGIN_SUCCESS") : brand.links.home;
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
