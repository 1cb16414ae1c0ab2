import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  BRANDS,
  eulaUrl,
  LANGUAGE_CODES,
  LANGUAGES,
  type Language,
  languageForCountry,
  languageFromAcceptLanguage,
  languageFromReturnUrl,
  languageFromTag,
  pickLanguage,
} from "../src/index.ts";

/** Our language for each primary subtag, written out (not derived) so a wrong table fails. */
const PRIMARY: Record<string, Language> = {
  en: "en",
  es: "es",
  pt: "pt",
  de: "de",
  it: "it",
  fr: "fr",
  zh: "cn",
  ko: "kr",
  ja: "jp",
};
const TRADITIONAL = ["TW", "HK", "MO"];
const anyCase = (text: string) =>
  fc
    .array(fc.boolean(), { minLength: text.length, maxLength: text.length })
    .map((upper) => [...text].map((c, i) => (upper[i] ? c.toUpperCase() : c.toLowerCase())).join(""));
const separator = fc.constantFrom("-", "_");
const region = fc.oneof(
  fc.stringMatching(/^[A-Z]{2}$/u).filter((r) => !TRADITIONAL.includes(r)),
  fc.constantFrom("419", "001", "150"),
);

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
    expect(languageForCountry("CN")).toBe("cn");
    expect(languageForCountry("SG")).toBe("cn");
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

  it("never gives Taiwan, Hong Kong or Macau Simplified Chinese", () => {
    for (const country of TRADITIONAL) {
      expect(languageForCountry(country)).toBeUndefined();
      expect(pickLanguage({ country })).toBe("en");
      expect(pickLanguage({ country: country.toLowerCase() })).toBe("en");
    }
  });

  it("reads region- and script-tagged return paths by their language (de-de, pt-br, ja-jp, zh-hans, es-419)", () => {
    const cases: [string, Language][] = [
      ["de-de", "de"],
      ["de-at", "de"],
      ["de_CH", "de"],
      ["pt-br", "pt"],
      ["pt-pt", "pt"],
      ["ja-jp", "jp"],
      ["ko-kr", "kr"],
      ["zh-hans", "cn"],
      ["zh-cn", "cn"],
      ["zh-sg", "cn"],
      ["zh-Hans-HK", "cn"],
      ["es-419", "es"],
      ["es-mx", "es"],
      ["fr-ca", "fr"],
      ["en-gb", "en"],
      ["it-ch", "it"],
    ];
    for (const [segment, language] of cases)
      expect(languageFromReturnUrl(`https://www.brand.example/${segment}/pricing`), segment).toBe(language);
  });

  it("takes any language[-script][-region] tag of ours, in any case, with - or _", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...Object.keys(PRIMARY)),
        fc.option(region, { nil: undefined }),
        separator,
        fc.boolean(),
        (primary, area, sep, upper) => {
          const tag = [primary, area].filter(Boolean).join(sep);
          const written = upper ? tag.toUpperCase() : tag;
          expect(languageFromTag(written)).toBe(PRIMARY[primary]);
          expect(languageFromReturnUrl(`https://b.example/${written}/x`)).toBe(PRIMARY[primary]);
        },
      ),
    );
  });

  it("gives Traditional Chinese tags (zh-Hant, zh-TW, zh-HK, zh-MO) no language, whatever the case", () => {
    const traditional = fc.oneof(
      fc.tuple(separator, fc.constantFrom(...TRADITIONAL)).map(([sep, r]) => `zh${sep}${r}`),
      fc
        .tuple(separator, fc.option(fc.tuple(separator, region), { nil: undefined }))
        .map(([sep, rest]) => `zh${sep}hant${rest ? rest.join("") : ""}`),
    );
    fc.assert(
      fc.property(traditional.chain(anyCase), (tag) => {
        expect(languageFromTag(tag)).toBeUndefined();
        expect(languageFromReturnUrl(`https://b.example/${tag}/x`)).toBeUndefined();
        expect(pickLanguage({ returnTo: `https://b.example/${tag}/`, country: "TW" })).toBe("en");
      }),
    );
  });

  it("does not take words that only look like a language for one", () => {
    for (const segment of ["pricing", "de-facto", "it-services", "english", "zh-hant-tw-x", "d", ""])
      expect(languageFromReturnUrl(`https://b.example/${segment}/x`), segment).toBeUndefined();
  });

  it("reads Accept-Language by preference, skipping what we do not have and q=0", () => {
    expect(languageFromAcceptLanguage("de-DE,de;q=0.9,en;q=0.8")).toBe("de");
    expect(languageFromAcceptLanguage("zh-TW,zh;q=0.9,ja;q=0.8")).toBe("jp");
    expect(languageFromAcceptLanguage("zh-HK,zh;q=0.9,en-US;q=0.8")).toBe("en");
    expect(languageFromAcceptLanguage("zh,zh-TW;q=0.9")).toBe("cn");
    expect(languageFromAcceptLanguage("zh-CN,zh;q=0.9")).toBe("cn");
    expect(languageFromAcceptLanguage("zh-TW,zh-HK;q=0.9,ja;q=0.8")).toBe("jp");
    expect(languageFromAcceptLanguage("zh-Hant;q=1, pt-BR;q=0.5")).toBe("pt");
    expect(languageFromAcceptLanguage("en;q=0.1, ko-KR;q=0.7")).toBe("kr");
    expect(languageFromAcceptLanguage("fr;q=0, es-419")).toBe("es");
    expect(languageFromAcceptLanguage("nl-NL, sv")).toBeUndefined();
    expect(languageFromAcceptLanguage("*")).toBeUndefined();
    expect(languageFromAcceptLanguage("")).toBeUndefined();
    expect(languageFromAcceptLanguage(undefined)).toBeUndefined();
  });

  it("reads any Accept-Language without throwing", () => {
    fc.assert(
      fc.property(fc.string(), (header) => {
        const language = languageFromAcceptLanguage(header);
        expect(language === undefined || LANGUAGE_CODES.includes(language)).toBe(true);
      }),
    );
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
