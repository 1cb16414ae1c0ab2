import { describe, expect, it } from "vitest";
import { endpoints } from "../src/endpoints.ts";
import { api, ROUTE_IDS, ROUTES, routeUrl, UI_PATHS } from "../src/index.ts";

describe("UI route table (spec §2)", () => {
  it("has every route id with its path", () => {
    expect(ROUTE_IDS).toHaveLength(37);
    expect(ROUTES.LOGIN.path).toBe("/");
    expect(ROUTES.PASSWORD_CHANGE).toMatchObject({ path: "/account/password-change", loginRequired: true });
    expect(ROUTES.SKETCHUP_LOGIN_COMPLETE.path).toBe("/register/trimble/complete");
    expect(new Set(UI_PATHS).size).toBe(UI_PATHS.length);
  });

  it("marks the pages that do not fetch the session: spec §2's three, the desktop-app pages, /close and the legacy callback", () => {
    const skipping = ROUTE_IDS.filter((id) => (ROUTES[id] as { skipSession?: boolean }).skipSession);
    expect(skipping.sort()).toEqual([
      "CLOSE",
      "ERROR",
      "LEGACY_LOGIN_CALLBACK",
      "REGISTER_COMPLETE",
      "SKETCHUP_LOGIN_COMPLETE",
      "ULA_LOGIN_ERROR",
      "ULA_LOGIN_SUCCESS",
      "ULA_LOGOUT_SUCCESS",
    ]);
  });

  it("builds URLs with their query, dropping empty values", () => {
    expect(routeUrl("PASSWORD_CHANGE", { required_password_update: "true", return_to: undefined })).toBe(
      "/account/password-change?required_password_update=true",
    );
    expect(routeUrl("LOGIN")).toBe("/");
  });
});

describe("gateway endpoints (spec §7)", () => {
  it("declares every call of the spec", () => {
    const calls = Object.values(endpoints).map((e) => `${e.method} ${e.path}`);
    expect(calls).toEqual(
      expect.arrayContaining([
        "GET /session",
        "GET /countries",
        "POST /account/login",
        "POST /account/login/modes",
        "POST /account/logout",
        "POST /account/register/validate",
        "POST /account/register",
        "GET /captcha/generate",
        "POST /account/social/login",
        "POST /account/social/register",
        "POST /account/social/link",
        "POST /account/federated/login",
        "GET /account/profile",
        "PUT /account/profile",
        "POST /account/recover",
        "GET /account/recover/{code}",
        "POST /account/reset_password",
        "POST /account/setup_password",
        "POST /account/change_password",
        "POST /account/activate",
        "POST /account/resend_activation",
        "POST /account/delete",
        "POST /account/trial/activation/resend",
        "POST /account/activation/login",
        "GET /discourse/sso",
        "GET /legacy_token",
      ]),
    );
  });

  it("uses the spec's payload names", () => {
    expect(Object.keys(api.register.body.shape)).toEqual(
      expect.arrayContaining([
        "captchaGUID",
        "captchaAnswer",
        "email",
        "password",
        "firstName",
        "lastName",
        "countryCode",
        "newsletterSubscription",
        "returnTo",
        "utmMedium",
        "utmSource",
        "utmCampaign",
        "httpReferer",
        "productCode",
        "isTrial",
        "isEnscapeTrial",
      ]),
    );
    // Spec §7's two flags, and our `next` (issue #24).
    expect(Object.keys(api.login.answer.shape)).toEqual(["RequiredPasswordUpdate", "RequiredProfileUpdate", "next"]);
    expect(Object.keys(api.session.answer.def.innerType.shape)).toEqual([
      "ID",
      "UserGUID",
      "Email",
      "FirstName",
      "LastName",
      "Location",
      "Linked",
    ]);
  });
});
