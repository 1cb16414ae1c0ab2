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
  // Simplified Chinese only where it is the written standard: Taiwan, Hong Kong and Macau write Traditional.
  CN: "cn",
  SG: "cn",
  KR: "kr",
  KP: "kr",
  JP: "jp",
};

export function languageForCountry(country: string | undefined): Language | undefined {
  return country ? COUNTRY_LANGUAGE[country.toUpperCase()] : undefined;
}

/**
 * Regions whose Chinese is written in Traditional characters. We have no Traditional catalog, and Simplified is
 * not what these visitors read, so they get the default language (docs/decisions.md, "Language").
 */
export const TRADITIONAL_CHINESE_REGIONS: ReadonlySet<string> = new Set(["TW", "HK", "MO"]);

/** Our language for each primary language subtag of BCP 47 (`zh` → cn, `ko` → kr, `ja` → jp). */
const BY_PRIMARY_SUBTAG: ReadonlyMap<string, Language> = new Map(
  LANGUAGE_CODES.map((code) => [LANGUAGES[code].tag.toLowerCase().split("-")[0] ?? code, code] as const),
);

/** language[-script][-region], `-` or `_` between: `de`, `de-AT`, `pt_BR`, `zh-Hans`, `zh-Hant-TW`, `es-419`. */
const TAG_SHAPE = /^([a-z]{2,3})(?:[-_]([a-z]{4}))?(?:[-_]([a-z]{2}|\d{3}))?$/iu;

interface Tag {
  primary: string;
  script?: string | undefined;
  region?: string | undefined;
}

function parseTag(tag: string): Tag | undefined {
  const match = TAG_SHAPE.exec(tag.trim());
  if (!match) return undefined;
  const [, primary = "", script, region] = match;
  return { primary: primary.toLowerCase(), script: script?.toLowerCase(), region: region?.toUpperCase() };
}

/** Chinese written in Traditional characters: script Hant, or a Traditional region with no script named. */
function isTraditionalChinese({ primary, script, region }: Tag): boolean {
  if (primary !== "zh") return false;
  if (script) return script === "hant";
  return region !== undefined && TRADITIONAL_CHINESE_REGIONS.has(region);
}

function languageOf(tag: Tag): Language | undefined {
  return isTraditionalChinese(tag) ? undefined : BY_PRIMARY_SUBTAG.get(tag.primary);
}

/**
 * The language of a BCP 47 tag (language, optional script and region; underscores too), by its language subtag:
 * `de-AT` → de, `pt-BR` → pt, `ja-JP` → jp, `zh-Hans`/`zh-CN`/`zh-SG` → cn. Traditional Chinese (`zh-Hant`,
 * `zh-TW`, `zh-HK`, `zh-MO`) has no catalog and gets undefined, so the caller falls back.
 */
export function languageFromTag(tag: string): Language | undefined {
  const parsed = parseTag(tag);
  return parsed ? languageOf(parsed) : undefined;
}

/**
 * The first language of an Accept-Language header we have, in the header's order of preference (q-values;
 * q=0 means "not this one"), e.g. `zh-TW, ja;q=0.8` → jp. A bare `zh` after a Traditional one is the browser's
 * fallback for that Traditional Chinese (`zh-TW,zh;q=0.9`), so it does not mean Simplified either.
 */
export function languageFromAcceptLanguage(header: string | undefined | null): Language | undefined {
  if (!header) return undefined;
  let readsTraditional = false;
  for (const range of rangesByPreference(header)) {
    const tag = parseTag(range);
    if (!tag) continue;
    if (isTraditionalChinese(tag)) readsTraditional = true;
    const bareChinese = tag.primary === "zh" && !tag.script && !tag.region;
    const language = readsTraditional && bareChinese ? undefined : languageOf(tag);
    if (language) return language;
  }
  return undefined;
}

/** The language ranges of an Accept-Language header, most wanted first; q=0 ("not this one") left out. */
function rangesByPreference(header: string): string[] {
  const ranges = header.split(",").flatMap((part, index) => {
    const [range = "", ...params] = part.split(";").map((p) => p.trim());
    const q = params.find((p) => /^q=/iu.test(p));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    return range && Number.isFinite(weight) && weight > 0 ? [{ range, weight, index }] : [];
  });
  return ranges.sort((a, b) => b.weight - a.weight || a.index - b.index).map((r) => r.range);
}

/**
 * The language named by the first path segment of a return URL: our own code (`/jp/`, `/kr/`, `/cn/`) or a BCP 47
 * tag with or without region (`/de/`, `/de-de/`, `/pt-br/`, `/zh-hans/`, `/es-419/`), e.g.
 * https://brand.example/de-at/pricing → de.
 */
export function languageFromReturnUrl(returnTo: string | undefined | null): Language | undefined {
  if (!returnTo) return undefined;
  let url: URL;
  try {
    url = new URL(returnTo);
  } catch {
    return undefined;
  }
  const first = url.pathname.split("/").find((segment) => segment !== "");
  if (!first) return undefined;
  const segment = safeDecode(first).toLowerCase();
  return isLanguage(segment) ? segment : languageFromTag(segment);
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
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
