import { ACTIVITY_KINDS, type ActivityKind, LANGUAGE_CODES, loadCatalog, SIGN_IN_METHODS } from "@gatehouse/contract";
import i18next, { type TFunction } from "i18next";
import { describe, expect, it } from "vitest";
import { eventWords } from "../src/screens/security/Activity.tsx";
import { countryName, deviceWords, localeOf, methodWords, timeAgo } from "../src/screens/security/words.ts";

/** A translation function over a language's real catalog, as the app's i18next has it. */
async function tOf(language: (typeof LANGUAGE_CODES)[number]): Promise<TFunction> {
  const instance = i18next.createInstance();
  await instance.init({
    lng: language,
    resources: { [language]: { translation: await loadCatalog(language) } },
    interpolation: { escapeValue: false },
  });
  return instance.t;
}

const event = (kind: ActivityKind) => ({
  at: 0,
  kind,
  device: { browser: "Chrome 131", os: "Windows 10" },
  country: "DE",
  method: kind === "sign_in" ? ("passkey" as const) : null,
  provider: kind.startsWith("identity_") ? "google" : null,
  factor: kind.startsWith("second_factor_") ? ("totp" as const) : null,
  app: kind.startsWith("app_") ? "Partner Gallery" : null,
});

describe("the security page's words (issue #27)", () => {
  it.each(LANGUAGE_CODES)("says every kind of activity and every sign-in method in words (%s)", async (language) => {
    const t = await tOf(language);
    for (const kind of ACTIVITY_KINDS) {
      const words = eventWords(t, event(kind));
      expect(words, `${language} ${kind}`).not.toMatch(/securityPage|\{\{/u);
      if (kind === "app_removed") expect(words).toContain("Partner Gallery");
      if (kind === "identity_linked") expect(words).toContain("Google");
    }
    for (const method of SIGN_IN_METHODS) {
      expect(methodWords(t, method, null), `${language} ${method}`).not.toMatch(/securityPage/u);
    }
  });

  it("puts the method, the provider and the factor into the English sentences", async () => {
    const t = await tOf("en");
    expect(eventWords(t, event("sign_in"))).toBe("Signed in with a passkey");
    expect(eventWords(t, { ...event("sign_in"), method: "social", provider: "google" })).toBe("Signed in with Google");
    expect(eventWords(t, { ...event("sign_in"), method: null })).toBe("Signed in");
    expect(eventWords(t, event("second_factor_added"))).toBe("Authenticator app added");
    expect(eventWords(t, event("app_removed"))).toBe("Access removed for Partner Gallery");
  });

  it("names the device, the country in the page's language, and how long ago", async () => {
    const t = await tOf("en");
    expect(deviceWords(t, { browser: "Chrome 131", os: "Windows 10" })).toBe("Chrome 131 on Windows 10");
    expect(deviceWords(t, { browser: "Chrome 131", os: null })).toBe("Chrome 131");
    expect(deviceWords(t, { browser: null, os: null })).toBe("Unknown browser");
    expect(countryName(localeOf("jp"), "JP")).toBe("日本");
    expect(countryName(localeOf("de"), "FR")).toBe("Frankreich");
    expect(countryName("en", null)).toBeUndefined();
    expect(countryName("en", "ZZ")).toBeUndefined();
    const now = Date.UTC(2026, 10, 27, 12);
    expect(timeAgo("en", now - 5 * 60_000, now)).toBe("5 minutes ago");
    expect(timeAgo("en", now - 26 * 3600_000, now)).toBe("yesterday");
    expect(timeAgo("en", now - 10_000, now)).toBe("now");
  });
});
