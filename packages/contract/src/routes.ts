import type { OwedStep } from "./sign-in.ts";

/** UI routes of spec §2: id, path, the query parameters each reads, and what the shell must do for it. */
export interface UiRoute {
  readonly path: string;
  readonly query?: readonly string[];
  /** Redirect anonymous visitors to sign-in (spec §6). */
  readonly loginRequired?: boolean;
  /**
   * Spec §2: /error, /register/trimble/complete and /register/complete do not fetch the session; neither do the
   * desktop-app pages and /close, which only tell the person to close the window (docs/decisions.md).
   */
  readonly skipSession?: boolean;
}

export const ROUTES = {
  LOGIN: { path: "/" },
  LOGIN_SUCCESS: { path: "/login/success" },
  /**
   * Our addition (issue #26): the second factor a sign-in owes (an authenticator code, a passkey, a recovery code).
   * Opened only by a sign-in attempt's `next`; `second_factor` marks it as that step.
   */
  SECOND_FACTOR: { path: "/login/second-factor", query: ["return_to", "second_factor"] },
  SERVICE_LOGIN: { path: "/service_login" },
  CORPORATE_LOGIN: { path: "/corporate_login", query: ["return_to", "prompt", "cancelled"] },
  CORPORATE_LOGIN_ERROR: { path: "/corporate_login/error", query: ["error_code", "error_id"] },
  ULA_LOGIN_SUCCESS: { path: "/ula-login-success", skipSession: true },
  ULA_LOGIN_ERROR: { path: "/ula-login-error", query: ["error_description"], skipSession: true },
  ULA_LOGOUT_SUCCESS: { path: "/ula-logout-success", skipSession: true },
  ERROR: { path: "/error", query: ["error_description", "error_code", "error_id"], skipSession: true },
  DISCOURSE_LOGIN: { path: "/discourse/login" },
  SKETCHUP_LOGIN: { path: "/trimble/login" },
  LOGOUT: { path: "/logout", query: ["ua"] },
  REGISTER: { path: "/register" },
  REGISTER_COMPLETE: { path: "/register/complete", skipSession: true },
  SKETCHUP_LOGIN_COMPLETE: { path: "/register/trimble/complete", query: ["access_token"], skipSession: true },
  REGISTER_SOCIAL: {
    path: "/register/social",
    query: ["firstName", "lastName", "return_to", "email", "platform", "fullName"],
  },
  LINK_EXISTING_SOCIAL: { path: "/link/existing/social", query: ["email", "return_to"] },
  REGISTER_SOCIAL_COMPLETE: { path: "/register/social/complete" },
  ACCOUNT_EDIT: {
    path: "/profile/edit",
    // `setup_second_factor`: issue #26, a site that demands a second factor sends a person without one here.
    query: ["return_to", "required_profile_update", "setup_second_factor"],
    loginRequired: true,
  },
  /** Our addition (issue #27): where the person is signed in, which apps hold the account, what happened. */
  ACCOUNT_SECURITY: { path: "/account/security", loginRequired: true },
  ACCOUNT_ACTIVATE: { path: "/account/activate", query: ["code"] },
  ACCOUNT_DELETE: { path: "/account/delete", query: ["code"] },
  PASSWORD_RECOVER: { path: "/account/recover" },
  PASSWORD_RESET: { path: "/account/password-reset", query: ["code"] },
  PASSWORD_SETUP: { path: "/account/password-setup", query: ["code"] },
  PASSWORD_CHANGE: {
    path: "/account/password-change",
    query: ["return_to", "required_password_update"],
    loginRequired: true,
  },
  TRIAL_EMAIL_CHECK: { path: "/trial/email-check", query: ["productCode", "return_to"] },
  TRIAL_EMAIL_CONFIRM: { path: "/trial/email-confirm", query: ["productCode", "return_to"] },
  TRIAL_EXPIRED_LINK: { path: "/trial/link-expired", query: ["productCode", "return_to"] },
  TRIAL_LOGIN: { path: "/trial/login", query: ["productCode", "return_to"] },
  TRIAL_PASSWORD_RECOVER: { path: "/trial/recover", query: ["productCode", "return_to"] },
  TRIAL_REGISTER: { path: "/trial/register", query: ["productCode", "return_to"] },
  TRIAL_REGISTER_SUCCESS: { path: "/trial/register/success", query: ["productCode", "return_to"] },
  // `trial` and `productCode`: our addition, on a trial sign-up's link, so a failed link leads to the trial's pages.
  TRIAL_ACTIVATE_LOGIN: { path: "/account/activate/login", query: ["code", "return_to", "trial", "productCode"] },
  CLOSE: { path: "/close", query: ["origin"], skipSession: true },
  LEGACY_LOGIN_CALLBACK: { path: "/legacy_login/callback", skipSession: true },
} as const satisfies Record<string, UiRoute>;

export type RouteId = keyof typeof ROUTES;

export const ROUTE_IDS = Object.keys(ROUTES) as RouteId[];

/** Every UI path; the server answers each with the SPA's HTML. */
export const UI_PATHS: readonly string[] = ROUTE_IDS.map((id) => ROUTES[id].path);

/** The screen of each step a sign-in attempt may owe (issue #24; the attempt's `next` names its address). */
export const STEP_ROUTES = {
  second_factor: "SECOND_FACTOR",
  password_change: "PASSWORD_CHANGE",
  profile_update: "ACCOUNT_EDIT",
} as const satisfies Record<OwedStep, RouteId>;

/**
 * The query parameter that opens a step's screen as that step: the password change's `required_password_update`
 * (spec §2, which also shows the merge banner), and our `required_profile_update` for the profile.
 */
export const STEP_PARAMS = {
  second_factor: "second_factor",
  password_change: "required_password_update",
  profile_update: "required_profile_update",
} as const satisfies Record<OwedStep, string>;

/** The address of an owed step's screen, marked as the step (STEP_PARAMS), keeping the return address. */
export function stepUrl(step: OwedStep, returnTo?: string): string {
  return routeUrl(STEP_ROUTES[step], { [STEP_PARAMS[step]]: "true", return_to: returnTo });
}

/** Builds a UI path with its query string, dropping empty values. */
export function routeUrl(id: RouteId, query: Record<string, string | undefined> = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== "") params.set(key, value);
  const search = params.toString();
  return search ? `${ROUTES[id].path}?${search}` : ROUTES[id].path;
}
