import type { RouteId } from "@gatehouse/contract";

/**
 * Which screen module each built route shows, as a path under `src/screens/` without its extension. Plain data,
 * so the build can read it too: it lists what to preload for each route in the host page (issue #9), and the
 * router loads the same modules on demand. A route of spec §2 missing here belongs to later work and shows the
 * 404 page until its screen lands (DEVELOPERS.md: never a placeholder).
 */
export const SCREEN_FILES: Partial<Record<RouteId, string>> = {
  LOGIN: "login/Login",
  LOGIN_SUCCESS: "login/LoginSuccess",
  SECOND_FACTOR: "second-factor/SecondFactor",
  LOGOUT: "login/Logout",
  SERVICE_LOGIN: "service/ServiceLogin",
  ERROR: "system/ErrorPage",
  REGISTER: "register/Register",
  REGISTER_COMPLETE: "register/RegisterComplete",
  ACCOUNT_ACTIVATE: "activate/Activate",
  TRIAL_ACTIVATE_LOGIN: "activate/ActivateLogin",
  PASSWORD_RECOVER: "password/Recover",
  PASSWORD_RESET: "password/Reset",
  PASSWORD_SETUP: "password/Setup",
  PASSWORD_CHANGE: "password/Change",
  ACCOUNT_EDIT: "profile/EditProfile",
  ACCOUNT_DELETE: "profile/DeleteAccount",
  ACCOUNT_SECURITY: "security/Security",
  ULA_LOGIN_SUCCESS: "desktop/DesktopApp",
  ULA_LOGIN_ERROR: "desktop/DesktopApp",
  ULA_LOGOUT_SUCCESS: "desktop/DesktopApp",
  CLOSE: "popup/Close",
  LEGACY_LOGIN_CALLBACK: "legacy/LegacyCallback",
  REGISTER_SOCIAL: "social/RegisterSocial",
  REGISTER_SOCIAL_COMPLETE: "social/RegisterSocialComplete",
  LINK_EXISTING_SOCIAL: "social/LinkAccount",
  CORPORATE_LOGIN: "corporate/CorporateLogin",
  CORPORATE_LOGIN_ERROR: "corporate/CorporateLoginError",
  TRIAL_EMAIL_CHECK: "trial/EmailCheck",
  TRIAL_EMAIL_CONFIRM: "trial/EmailConfirm",
  TRIAL_LOGIN: "trial/TrialLogin",
  TRIAL_REGISTER: "trial/TrialRegister",
  TRIAL_REGISTER_SUCCESS: "trial/TrialRegisterSuccess",
  TRIAL_EXPIRED_LINK: "trial/ExpiredLink",
  TRIAL_PASSWORD_RECOVER: "trial/TrialRecover",
  DISCOURSE_LOGIN: "forum/DiscourseLogin",
  SKETCHUP_LOGIN: "studio/TrimbleLogin",
  SKETCHUP_LOGIN_COMPLETE: "studio/StudioComplete",
};
