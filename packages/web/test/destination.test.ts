import type { ReturnPolicy } from "@gatehouse/contract";
import { describe, expect, it } from "vitest";
import { openedAsStep } from "../src/app/owed-step.ts";
import { destinationWhenSignedIn, isInternal } from "../src/screens/login/destination.ts";

const policy: ReturnPolicy = { allowedHosts: ["www.gatehouse.example"], selfOrigin: "http://localhost:8080" };

describe("a signed-in visitor on the login page (spec §4)", () => {
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
    expect(destinationWhenSignedIn(returnTo, policy)).toBe("/profile/edit");
  });

  it("hands the browser, not the router, a path that would read as another host", () => {
    expect(isInternal("http://localhost:8080//evil.example/", "http://localhost:8080")).toBe(false);
    expect(isInternal("//evil.example/", "http://localhost:8080")).toBe(false);
    expect(isInternal("http://localhost:8080/profile/edit?x=1#y", "http://localhost:8080")).toBe(true);
  });
});

describe("the screen of an owed step (issue #24)", () => {
  it("is opened as the step by its marker only, and then serves the sign-in attempt (the shell lets a visitor in)", () => {
    expect(openedAsStep("PASSWORD_CHANGE", "?required_password_update=true&return_to=%2F")).toBe(true);
    expect(openedAsStep("ACCOUNT_EDIT", "?required_profile_update=true")).toBe(true);
    expect(openedAsStep("PASSWORD_CHANGE", "")).toBe(false);
    // Another step's marker, or the marker on another screen, opens nothing as a step.
    expect(openedAsStep("ACCOUNT_EDIT", "?required_password_update=true")).toBe(false);
    expect(openedAsStep("REGISTER", "?required_profile_update=true")).toBe(false);
    expect(openedAsStep(undefined, "?required_profile_update=true")).toBe(false);
  });
});
