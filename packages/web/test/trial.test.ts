import { BRANDS, type ReturnPolicy, routeUrl } from "@gatehouse/contract";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { trialActivationFailure, trialDestination } from "../src/screens/trial/destination.ts";
import {
  forgetTrialFlow,
  rememberTrialEmail,
  rememberTrialRegistered,
  trialEmail,
  trialRegistered,
  trialUrl,
} from "../src/screens/trial/flow.ts";

const policy: ReturnPolicy = { allowedHosts: ["www.gatehouse.example"], selfOrigin: "http://localhost:8080" };

describe("where a trial ends (issue #12, spec §2 trial flow, §4)", () => {
  it("goes to an allowed return address as it is", () => {
    const to = "https://www.gatehouse.example/products/try?x=1";
    expect(trialDestination(to, policy, BRANDS.cloud, { isNewAccount: false, productCode: "CR-1" })).toBe(to);
  });

  it("goes to the brand's trial address, told whether the account is new and which product, without one", () => {
    const url = new URL(trialDestination(null, policy, BRANDS.cloud, { isNewAccount: false, productCode: "CR-1" }));
    expect(`${url.origin}${url.pathname}`).toBe(BRANDS.cloud.links.trial);
    expect(url.searchParams.get("isNewAccount")).toBe("false");
    expect(url.searchParams.get("productCode")).toBe("CR-1");
  });

  it("never follows a return address outside the allow-list", () => {
    const url = new URL(trialDestination("https://evil.example/", policy, BRANDS.archviz, { isNewAccount: true }));
    expect(url.origin).toBe(new URL(BRANDS.archviz.links.trial).origin);
    expect(url.searchParams.get("isNewAccount")).toBe("true");
    expect(url.searchParams.has("productCode")).toBe(false);
  });
});

describe("a trial's activation link that cannot be used (spec §8 'Activation of a trial')", () => {
  it("a used link means an active account: the trial's destination, as a new account", () => {
    const to = "https://www.gatehouse.example/try";
    expect(trialActivationFailure("errors.code_used", to, policy, BRANDS.cloud)).toEqual({ leave: to });
    const failure = trialActivationFailure("errors.code_used", null, policy, BRANDS.cloud);
    expect(failure).toEqual({ leave: `${BRANDS.cloud.links.trial}?isNewAccount=true` });
    // The link names its product: the trial address is told which.
    expect(trialActivationFailure("errors.code_used", null, policy, BRANDS.cloud, "CR-1")).toEqual({
      leave: `${BRANDS.cloud.links.trial}?isNewAccount=true&productCode=CR-1`,
    });
  });

  it.each(["errors.code_expired", "errors.code_superseded", "errors.code_invalid"])(
    "%s: the expired-link page",
    (code) => {
      expect(trialActivationFailure(code, null, policy, BRANDS.cloud)).toEqual({ expired: true });
    },
  );

  it.each(["errors.user_disabled", "activate.invalidLink", "network.unexpected"])(
    "%s: the activation page's error",
    (code) => {
      expect(trialActivationFailure(code, null, policy, BRANDS.cloud)).toBeUndefined();
    },
  );
});

describe("the trial's query between its screens", () => {
  it("passes productCode and return_to on as they came, and nothing else", () => {
    const query = new URLSearchParams({ productCode: "CR-1", return_to: "https://x.example/", email: "a@b.c" });
    expect(trialUrl("TRIAL_LOGIN", query)).toBe(
      routeUrl("TRIAL_LOGIN", { productCode: "CR-1", return_to: "https://x.example/" }),
    );
    expect(trialUrl("TRIAL_EMAIL_CHECK", new URLSearchParams())).toBe("/trial/email-check");
  });
});

describe("the trial's address in this tab's sessionStorage (ASVS 14.2.1: never in a URL)", () => {
  const store = new Map<string, string>();
  beforeEach(() => {
    store.clear();
    vi.stubGlobal("window", {
      sessionStorage: {
        getItem: (k: string) => store.get(k) ?? null,
        setItem: (k: string, v: string) => void store.set(k, v),
        removeItem: (k: string) => void store.delete(k),
      },
    });
  });
  afterEach(() => vi.unstubAllGlobals());

  it("keeps the checked address for the next screens, and the registered one for the success screen", () => {
    expect(trialEmail()).toBeUndefined();
    expect(trialRegistered()).toBeUndefined();
    rememberTrialEmail("rosa@example.com");
    expect(trialEmail()).toBe("rosa@example.com");
    expect(trialRegistered()).toBeUndefined();
    rememberTrialRegistered("rosa@example.com");
    expect(trialRegistered()).toBe("rosa@example.com");
  });

  it("forgets both once the trial starts or the person signs out (a shared computer's next person)", () => {
    rememberTrialEmail("rosa@example.com");
    rememberTrialRegistered("rosa@example.com");
    forgetTrialFlow();
    expect(trialEmail()).toBeUndefined();
    expect(trialRegistered()).toBeUndefined();
  });

  it("has no address when the browser refuses storage: the flow starts again at the email check", () => {
    vi.stubGlobal("window", {
      get sessionStorage(): Storage {
        throw new DOMException("denied", "SecurityError");
      },
    });
    rememberTrialEmail("rosa@example.com");
    expect(trialEmail()).toBeUndefined();
  });
});
