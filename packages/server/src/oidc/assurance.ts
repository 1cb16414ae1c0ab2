import { ROUTES } from "@gatehouse/contract";

/**
 * Authentication context class references (OIDC Core §2 `acr`), named after NIST SP 800-63B's assurance levels: a
 * sign-in with one factor is `aal1`, one with two (`mfa` in its RFC 8176 amr) `aal2` (issue #26).
 */
export const ACR_VALUES = ["aal1", "aal2"] as const;
export type Acr = (typeof ACR_VALUES)[number];

/** The `acr` a gateway session's proofs reach. */
export const acrOf = (amr: readonly string[]): Acr => (amr.includes("mfa") ? "aal2" : "aal1");

/** What an authorization request and its client demand of the sign-in, read from the request's parameters. */
interface Demand {
  params: Record<string, unknown>;
  /** The provider's client, which carries the clients file's `require_mfa` (extraClientMetadata). */
  client: object | undefined;
}

/**
 * Whether the sign-in for this request must include a second factor: the client is marked `require_mfa` in the
 * clients file, or the request's `acr_values` (OIDC Core §3.1.2.1, a preference list) offers `aal2` and not `aal1`
 * — a list that still accepts `aal1` is met by any sign-in.
 */
export function mfaDemanded({ params, client }: Demand): boolean {
  if ((client as { require_mfa?: unknown } | undefined)?.require_mfa === true) return true;
  const asked = String(params.acr_values ?? "").split(" ");
  return asked.includes("aal2") && !asked.includes("aal1");
}

/** Whether the request named `acr_values` of its own, so that failing to meet it is said as RFC 9470 says. */
export const acrAsked = (params: Record<string, unknown>): boolean => String(params.acr_values ?? "").trim() !== "";

/**
 * Where a person without a second factor sets one up before the site's sign-in continues: Edit account's security
 * section, which comes back to SERVICE_LOGIN (with its query: the client's brand) once a factor is confirmed.
 */
export function secondFactorSetupUrl(serviceLogin: string = ROUTES.SERVICE_LOGIN.path): string {
  const query = new URLSearchParams({ setup_second_factor: "true", return_to: serviceLogin });
  return `${ROUTES.ACCOUNT_EDIT.path}?${query}`;
}
