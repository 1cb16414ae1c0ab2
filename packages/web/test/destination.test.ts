import { BRANDS, type ReturnPolicy } from "@gatehouse/contract";
import { describe, expect, it } from "vitest";
import { owedStepRedirect } from "../src/app/required-step.ts";
import {
  destinationAfterSignIn,
  destinationWhenSignedIn,
  isInternal,
  landingPage,
} from "../src/screens/login/destination.ts";

const policy: ReturnPolicy = { allowedHosts: ["www.gatehouse.example"], selfOrigin: "http://localhost:8080" };
const ok = { RequiredPasswordUpdate: false, RequiredProfileUpdate: false };

describe("where sign-in continues (spec §4)", () => {
  it("goes to an allowed return address", () => {
    expect(destinationAfterSignIn(ok, "https://www.gatehouse.example/x", policy, BRANDS.default)).toBe(
      "https://www.gatehouse.example/x",
    );
  });

  it("goes to the brand's landing page when the return address is refused or missing", () => {
    expect(destinationAfterSignIn(ok, "https://evil.example/", policy, BRANDS.default)).toBe(BRANDS.default.links.home);
    expect(destinationAfterSignIn(ok, null, policy, BRANDS.cloud)).toBe(BRANDS.cloud.links.home);
    expect(destinationAfterSignIn(ok, null, policy, BRANDS.archviz)).toBe("/login/success");
    expect(landingPage(BRANDS.archviz)).toBe("/login/success");
  });

  it("puts a required password update first, keeping only an allowed return address", () => {
    expect(
      destinationAfterSignIn(
        { RequiredPasswordUpdate: true, RequiredProfileUpdate: true },
        "https://www.gatehouse.example/x",
        policy,
        BRANDS.default,
      ),
    ).toBe("/account/password-change?required_password_update=true&return_to=https%3A%2F%2Fwww.gatehouse.example%2Fx");
    expect(
      destinationAfterSignIn(
        { RequiredPasswordUpdate: true, RequiredProfileUpdate: false },
        "https://evil.example/",
        policy,
        BRANDS.default,
      ),
    ).toBe("/account/password-change?required_password_update=true");
  });

  it("then a required profile update", () => {
    expect(
      destinationAfterSignIn(
        { RequiredPasswordUpdate: false, RequiredProfileUpdate: true },
        null,
        policy,
        BRANDS.default,
      ),
    ).toBe("/profile/edit");
  });

  it("sends a signed-in visitor to return_to or to edit account", () => {
    expect(destinationWhenSignedIn("https://www.gatehouse.example/y", policy)).toBe("https://www.gatehouse.example/y");
    expect(destinationWhenSignedIn("https://evil.example/", policy)).toBe("/profile/edit");
  });

  it("tells our own pages from others", () => {
    expect(isInternal("/login/success", "http://localhost:8080")).toBe(true);
    expect(isInternal("http://localhost:8080/profile/edit", "http://localhost:8080")).toBe(true);
    expect(isInternal("https://www.gatehouse.example/", "http://localhost:8080")).toBe(false);
  });

  it("leaves the app for the gateway's navigations, which the server answers (issue #13)", () => {
    for (const address of [
      "/api/studio/complete",
      "http://localhost:8080/api/studio/complete",
      "/API/studio/complete",
      "/api",
      "/api/legacy_token?continue=x",
    ]) {
      expect(isInternal(address, "http://localhost:8080"), address).toBe(false);
    }
    expect(isInternal("/apix/screen", "http://localhost:8080")).toBe(true);
    expect(isInternal("/register/trimble/complete", "http://localhost:8080")).toBe(true);
    // The studio's continuation: a signed-in visitor of the login page goes there with a full page load.
    expect(destinationWhenSignedIn("/api/studio/complete", policy)).toBe("http://localhost:8080/api/studio/complete");
  });

  it.each([
    "/..//evil.example/",
    "/a/../..//evil.example/",
    "/%2e%2e//evil.example/",
    "/%2e%2e%2f/evil.example/",
    "http://localhost:8080/..//evil.example/",
  ])("never continues to %s, which the router would read as another host", (returnTo) => {
    expect(destinationAfterSignIn(ok, returnTo, policy, BRANDS.default)).toBe(BRANDS.default.links.home);
    expect(destinationWhenSignedIn(returnTo, policy)).toBe("/profile/edit");
  });

  it("hands the browser, not the router, a path that would read as another host", () => {
    expect(isInternal("http://localhost:8080//evil.example/", "http://localhost:8080")).toBe(false);
    expect(isInternal("//evil.example/", "http://localhost:8080")).toBe(false);
    expect(isInternal("http://localhost:8080/profile/edit?x=1#y", "http://localhost:8080")).toBe(true);
  });
});

describe("a person who owes a step (issue #10 §1)", () => {
  it("is sent to that step's screen from any other screen, with the return address", () => {
    expect(owedStepRedirect("ACCOUNT_EDIT", "password_change", "")).toBe(
      "/account/password-change?required_password_update=true",
    );
    // A return address comes along as it is: the step's screen checks it before it uses it.
    expect(owedStepRedirect("REGISTER", "profile_update", "?return_to=%2Faccount%2Frecover")).toBe(
      "/profile/edit?return_to=%2Faccount%2Frecover",
    );
    expect(owedStepRedirect("PASSWORD_CHANGE", "profile_update", "")).toBe("/profile/edit");
  });

  it("stays on the step's own screen, on sign-out and sign-in, and nobody else is sent anywhere", () => {
    expect(owedStepRedirect("PASSWORD_CHANGE", "password_change", "")).toBeUndefined();
    expect(owedStepRedirect("ACCOUNT_EDIT", "profile_update", "")).toBeUndefined();
    expect(owedStepRedirect("LOGOUT", "password_change", "")).toBeUndefined();
    expect(owedStepRedirect("ACCOUNT_EDIT", null, "")).toBeUndefined();
    expect(owedStepRedirect(undefined, "password_change", "")).toBeUndefined();
    // The login page sends a signed-in person on itself, step first, with only an allowed return address.
    expect(owedStepRedirect("LOGIN", "password_change", "")).toBeUndefined();
  });

  it("goes to the step first when signed in on the login page", () => {
    expect(destinationWhenSignedIn("https://www.gatehouse.example/x", policy, "profile_update")).toBe(
      "/profile/edit?return_to=https%3A%2F%2Fwww.gatehouse.example%2Fx",
    );
    expect(destinationWhenSignedIn("https://www.gatehouse.example/x", policy, null)).toBe(
      "https://www.gatehouse.example/x",
    );
  });
});
