import { type BrandId, type NextStep, type OwedStep, ROUTES, stepUrl } from "@gatehouse/contract";

/** Where a sign-in goes once finished: decided when it starts, kept by its attempt while steps are owed. */
export interface Destination {
  /** The return address, already checked against the host's policy (absolute, or a path on this host), or none. */
  returnTo?: string;
  /** Where a sign-in without a return address lands on this host (the brand's page, a trial's address, …). */
  landing: string;
  /**
   * Issue #26: the site this sign-in is for demands a second factor (acr_values=aal2, require_mfa; oidc/assurance.ts),
   * so a remembered browser must not skip it. Set by the routes from the provider's pending interaction.
   */
  mfa?: true;
  /**
   * Issue #26 (an attacker's review): the trial a trial-mode sign-in starts, kept by an attempt that owes the second
   * factor so that a password alone starts nothing; the trial starts once the factor is given.
   */
  trial?: { productCode: string; brand: BrandId };
}

/** What the next step is decided from, besides the owed step and the destination. */
export interface NextContext {
  /** The origin of the host the person is on. */
  selfOrigin: string;
  /** Origins of the legacy sites, whose return addresses get their token through the legacy flow (spec §4). */
  legacyOrigins: readonly string[];
}

/**
 * The one "next step" (issue #24 §1): where a person goes after any sign-in or owed step. An owed step first (its
 * screen keeps the destination as return address); then the provider's sign-in when the sign-in was made for a site
 * or app (SERVICE_LOGIN finishes it), a legacy site's token flow, the allowed return address, or the landing page.
 */
export function nextStep(owes: OwedStep | null, destination: Destination, context: NextContext): NextStep {
  const { returnTo, landing } = destination;
  if (owes) return { kind: "step", url: stepUrl(owes, returnTo) };
  if (!returnTo) return { kind: "landing", url: landing };
  const url = new URL(returnTo, context.selfOrigin);
  // Its query (the client's brand, for the theme) comes along; the provider's interaction is in its cookie.
  if (url.origin === context.selfOrigin && url.pathname === ROUTES.SERVICE_LOGIN.path) {
    return { kind: "provider", url: `${url.pathname}${url.search}` };
  }
  if (context.legacyOrigins.includes(url.origin)) return { kind: "legacy", url: returnTo };
  return { kind: "return", url: returnTo };
}

/** Whether a sign-in's next step is the second factor (the sign-in's proof is not whole yet). */
export function owesSecondFactorNext(next: NextStep): boolean {
  return next.kind === "step" && next.url.startsWith(ROUTES.SECOND_FACTOR.path);
}
