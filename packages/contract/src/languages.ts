/** Interface languages of spec §1, with the BCP 47 tag each one renders as. English is default and fallback. */
export const LANGUAGES = {
  en: { tag: "en", name: "English" },
  es: { tag: "es", name: "Español" },
  pt: { tag: "pt", name: "Português" },
  de: { tag: "de", name: "Deutsch" },
  it: { tag: "it", name: "Italiano" },
  fr: { tag: "fr", name: "Français" },
  cn: { tag: "zh-CN", name: "简体中文" },
  kr: { tag: "ko", name: "한국어" },
  jp: { tag: "ja", name: "日本語" },
} as const;

export type Language = keyof typeof LANGUAGES;
export const LANGUAGE_CODES = Object.keys(LANGUAGES) as Language[];
export const DEFAULT_LANGUAGE: Language = "en";
export const LANGUAGE_COOKIE = "lang";

export function isLanguage(value: unknown): value is Language {
  return typeof value === "string" && Object.hasOwn(LANGUAGES, value);
}

/** Spec §9: the country map covers Spanish, Portuguese, Chinese, Korean and Japanese countries. */
const COUNTRY_LANGUAGE: Readonly<Record<string, Language>> = {
  ...Object.fromEntries(
    [
      "AR",
      "BO",
      "CL",
      "CO",
      "CR",
      "CU",
      "DO",
      "EC",
      "ES",
      "GQ",
      "GT",
      "HN",
      "MX",
      "NI",
      "PA",
      "PE",
      "PR",
      "PY",
      "SV",
      "UY",
      "VE",
    ].map((c) => [c, "es" as const]),
  ),
  ...Object.fromEntries(["AO", "BR", "CV", "GW", "MZ", "PT", "ST", "TL"].map((c) => [c, "pt" as const])),
  ...Object.fromEntries(["CN", "HK", "MO", "SG", "TW"].map((c) => [c, "cn" as const])),
  KR: "kr",
  KP: "kr",
  JP: "jp",
};

export function languageForCountry(country: string | undefined): Language | undefined {
  return country ? COUNTRY_LANGUAGE[country.toUpperCase()] : undefined;
}

/** Path segments a brand site uses for a language: our code, its BCP 47 tag, or the tag's primary subtag. */
const PATH_LANGUAGE: ReadonlyMap<string, Language> = new Map(
  LANGUAGE_CODES.flatMap((code) => {
    const tag = LANGUAGES[code].tag.toLowerCase();
    return [code, tag, tag.split("-")[0] ?? tag].map((segment) => [segment, code] as const);
  }),
);

/** The language named by the first path segment of a return URL, e.g. https://brand.example/de/pricing → de. */
export function languageFromReturnUrl(returnTo: string | undefined | null): Language | undefined {
  if (!returnTo) return undefined;
  let url: URL;
  try {
    url = new URL(returnTo);
  } catch {
    return undefined;
  }
  const first = url.pathname.split("/").find((segment) => segment !== "");
  return first ? PATH_LANGUAGE.get(first.toLowerCase()) : undefined;
}

/** Spec §1 order, as the foundation issue fixes it: cookie, then return-URL path, then country, else English. */
export function pickLanguage(input: {
  cookie?: string | null;
  returnTo?: string | null;
  country?: string | null;
}): Language {
  if (isLanguage(input.cookie)) return input.cookie;
  return languageFromReturnUrl(input.returnTo) ?? languageForCountry(input.country ?? undefined) ?? DEFAULT_LANGUAGE;
}
