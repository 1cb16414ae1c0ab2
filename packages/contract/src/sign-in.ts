/**
 * How a session was signed in (issue #10 §1): one server-side function finishes every sign-in and records the
 * method on the session, so the provider can answer `amr`/`auth_time` and the audit trail says how.
 */
export const SIGN_IN_METHODS = [
  "password",
  "activation",
  "password_setup",
  "social",
  "corporate",
  "forum",
  /** Issue #26: a passkey alone (usernameless, user verification required): two factors in one. */
  "passkey",
] as const;
export type SignInMethod = (typeof SIGN_IN_METHODS)[number];

/**
 * A step a person owes before a sign-in is finished: the second factor of an account that has one (issue #26) before
 * anything else, then (spec §4) a required password change, then a required profile update. The one vocabulary of owed steps (issue #24): the
 * server's sign-in attempt records it, no session ever owes one, and the login answer's RequiredPasswordUpdate /
 * RequiredProfileUpdate (spec §7) are read from it.
 */
export const OWED_STEPS = ["second_factor", "password_change", "profile_update"] as const;
export type OwedStep = (typeof OWED_STEPS)[number];

/**
 * Where a person goes after any sign-in or owed step (issue #24 §1), decided by the server alone and carried by
 * every sign-in answer as `next: { kind, url }`:
 * - `step`: the screen of a step the sign-in attempt still owes (the sign-in is not finished: no session yet);
 * - `provider`: back to SERVICE_LOGIN, which finishes the site's or app's OpenID Connect sign-in;
 * - `legacy`: a legacy site's return address, whose token the legacy flow fetches on the way (spec §4);
 * - `return`: the allowed return address (a brand site, the forum's or the studio's gateway call, a trial address);
 * - `landing`: no return address: the page the host's brand lands on.
 */
export const NEXT_KINDS = ["step", "provider", "legacy", "return", "landing"] as const;
export type NextKind = (typeof NEXT_KINDS)[number];
export interface NextStep {
  kind: NextKind;
  url: string;
}

/** The social providers of spec §2 (Login's buttons); any other provider of IDPS_FILE is a company's (corporate). */
export const SOCIAL_PLATFORMS = ["google", "facebook", "trimble"] as const;
export type SocialPlatform = (typeof SOCIAL_PLATFORMS)[number];

/** The providers' own names, the same in every language (proper names are not translated). */
export const SOCIAL_PLATFORM_NAMES: Readonly<Record<SocialPlatform, string>> = {
  google: "Google",
  facebook: "Facebook",
  trimble: "Trimble",
};

export function isSocialPlatform(value: unknown): value is SocialPlatform {
  return (SOCIAL_PLATFORMS as readonly unknown[]).includes(value);
}
