/**
 * How each language's catalog is cut for the browser (issue #9: the login route's JavaScript stays within its
 * budget as screens and strings are added). The login route loads the first part with its chunks; the sections
 * only other screens show come in a second part per language, loaded (and preloaded by the host page) with those
 * screens' chunks. The e-mails' wording is the server's alone and never reaches a browser.
 */

/** The routes whose screens need only the first part. */
export const FIRST_PART_ROUTES: readonly string[] = ["LOGIN"];

/** Sections the login route and the app's frame never show. */
export const LATER_SECTIONS: readonly string[] = [
  "errorPage",
  "serviceLogin",
  "loginSuccess",
  "logout",
  "desktopApp",
  "register",
  "botCheck",
  "registerComplete",
  "activate",
  "recover",
  "reset",
  "setup",
  "change",
  "profile",
  "deleteAccount",
  "social",
  "socialRegister",
  "socialRegisterComplete",
  "linkAccount",
  "corporateLogin",
  "corporateLoginError",
  "trial",
  "forum",
  "studio",
  "secondFactor",
  "security",
  "securityPage",
  "reauth",
];

/**
 * Error messages the login route never shows, since none of its calls answers them (the sign-in, the session, the
 * activation resend, the login modes): they come with the later part, under `errors` like the others.
 */
export const LATER_ERRORS: readonly string[] = [
  "captcha_incorrect",
  "studio_token_mismatch",
  "bot_check_failed",
  "email_conflict",
  "code_invalid",
  "code_expired",
  "code_used",
  "code_superseded",
  "current_password_incorrect",
  "weak_password",
  "context_password",
  "common_password",
  "password_not_allowed",
  "consent_required",
  "no_identity_provider",
  "social_idp_error",
  "external_idp_error",
  "social_invalid_authentication",
  "social_email_exists",
  "identity_last_method",
  "trial_limit_reached",
  "discourse_not_configured",
  "discourse_signature_invalid",
  "discourse_payload_invalid",
  "discourse_return_url_invalid",
  "discourse_nonce_used",
  "second_factor_invalid",
  "reauthentication_required",
  "totp_already_enabled",
];

/** Sections only the server uses (the e-mails). */
export const SERVER_ONLY_SECTIONS: readonly string[] = ["mail"];

/** The import query that asks for a catalog's later part: `…/i18n/<language>.json?later`. */
export const LATER_PART_QUERY = "later";

/** A catalog as the browser gets it: its first part, or (`later`) its later part; `errors` is cut in two. */
export function catalogPart(catalog: Record<string, unknown>, later: boolean): Record<string, unknown> {
  const part = Object.fromEntries(
    Object.entries(catalog).filter(
      ([section]) =>
        section !== "errors" && !SERVER_ONLY_SECTIONS.includes(section) && LATER_SECTIONS.includes(section) === later,
    ),
  );
  const errors = Object.entries((catalog.errors ?? {}) as Record<string, unknown>).filter(
    ([code]) => LATER_ERRORS.includes(code) === later,
  );
  return errors.length > 0 ? { ...part, errors: Object.fromEntries(errors) } : part;
}
