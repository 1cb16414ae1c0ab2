/**
 * Desktop apps sign in and out through the system browser, which ends on /ula-login-success, /ula-login-error or
 * /ula-logout-success (spec §2 "Desktop-app screens"). The provider names the app's client brand (CLIENTS_FILE
 * `brand`) in this query parameter, because those pages may open on a host of another brand (PUBLIC_URL); the
 * pages word themselves for that brand (docs/decisions.md "Desktop-app pages").
 */
export const DESKTOP_APP_BRAND_PARAM = "client_brand";
