/**
 * How a session was signed in (issue #10 §1): one server-side function finishes every sign-in and records the
 * method on the session, so the provider can answer `amr`/`auth_time` and the audit trail says how.
 */
export const SIGN_IN_METHODS = ["password", "activation", "password_setup", "social", "corporate", "forum"] as const;
export type SignInMethod = (typeof SIGN_IN_METHODS)[number];

/**
 * A step a signed-in person owes before the session may do anything else (spec §4: a required password change
 * first, then a required profile update). The session records it; only the step's own calls, GET /session and
 * sign-out are open to it until it is done.
 */
export const REQUIRED_STEPS = ["password_change", "profile_update"] as const;
export type RequiredStep = (typeof REQUIRED_STEPS)[number];

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
