import { describe, expect, it } from "vitest";
import {
  BRANDS,
  eulaUrl,
  LANGUAGE_CODES,
  LANGUAGES,
  languageForCountry,
  languageFromReturnUrl,
  pickLanguage,
} from "../src/index.ts";

describe("languages (spec §1, §9)", () => {
  it("has the nine languages with BCP 47 tags", () => {
    expect(LANGUAGE_CODES).toEqual(["en", "es", "pt", "de", "it", "fr", "cn", "kr", "jp"]);
    expect(LANGUAGES.cn.tag).toBe("zh-CN");
    expect(LANGUAGES.kr.tag).toBe("ko");
    expect(LANGUAGES.jp.tag).toBe("ja");
    for (const code of LANGUAGE_CODES) expect(Intl.getCanonicalLocales(LANGUAGES[code].tag)).toHaveLength(1);
  });

  it("maps Spanish, Portuguese, Chinese, Korean and Japanese countries only", () => {
    expect(languageForCountry("es")).toBe("es");
    expect(languageForCountry("MX")).toBe("es");
    expect(languageForCountry("BR")).toBe("pt");
    expect(languageForCountry("TW")).toBe("cn");
    expect(languageForCountry("KR")).toBe("kr");
    expect(languageForCountry("JP")).toBe("jp");
    expect(languageForCountry("DE")).toBeUndefined();
    expect(languageForCountry("FR")).toBeUndefined();
  });

  it("reads the language from the return URL's first path segment", () => {
    expect(languageFromReturnUrl("https://www.brand.example/de/pricing")).toBe("de");
    expect(languageFromReturnUrl("https://www.brand.example/ja/")).toBe("jp");
    expect(languageFromReturnUrl("https://www.brand.example/zh-cn/x")).toBe("cn");
    expect(languageFromReturnUrl("https://www.brand.example/pricing/de")).toBeUndefined();
    expect(languageFromReturnUrl("not a url")).toBeUndefined();
  });

  it("picks cookie, then return URL, then country, else English", () => {
    expect(pickLanguage({ cookie: "fr", returnTo: "https://b.example/de/", country: "ES" })).toBe("fr");
    expect(pickLanguage({ cookie: "xx", returnTo: "https://b.example/de/", country: "ES" })).toBe("de");
    expect(pickLanguage({ returnTo: "https://b.example/", country: "ES" })).toBe("es");
    expect(pickLanguage({ country: "DE" })).toBe("en");
    expect(pickLanguage({})).toBe("en");
  });

  it("falls back to the English EULA for Japanese", () => {
    for (const brand of Object.values(BRANDS)) {
      expect(eulaUrl(brand, "jp")).toBe(brand.links.eula.en);
      expect(eulaUrl(brand, "de")).not.toBe(brand.links.eula.en);
    }
  });
});
