import { LANGUAGE_CODES, LANGUAGES, type Language } from "@gatehouse/contract";
import countries from "i18n-iso-countries";

/** ISO 3166-1 alpha-2 codes we accept as a country. */
export const COUNTRY_CODES: ReadonlySet<string> = new Set(Object.keys(countries.getAlpha2Codes()));

export interface Country {
  code: string;
  name: string;
}

/**
 * Whose names we show: CLDR's, through the runtime's ICU (Intl.DisplayNames), reviewed per language by native
 * speakers and written as people say them ("Taiwan", "South Korea", "China", "Iran"), where ISO's own lists
 * read like the UN's ("Taiwan, Province of China", "Korea, Republic of"). Spanish in its Latin-American form
 * (es-419), as the catalog is (docs/decisions.md, "Countries").
 */
const NAME_LOCALE: Readonly<Record<Language, string>> = {
  ...(Object.fromEntries(LANGUAGE_CODES.map((code) => [code, LANGUAGES[code].tag])) as Record<Language, string>),
  es: "es-419",
};

/** CLDR's long names for these are formal ("Hong Kong SAR China", "Palestinian Territories"); its short ones are everyday. */
const SHORT_FORM: ReadonlySet<string> = new Set(["HK", "MO", "PS"]);

/** Where CLDR's name is still not the everyday one in that language, or files a country away from its siblings. */
const EVERYDAY: Readonly<Record<Language, Readonly<Record<string, string>>>> = {
  en: { TR: "Turkey", CD: "Congo (DRC)", CG: "Congo (Republic)" },
  es: {},
  pt: { CD: "República Democrática do Congo" },
  de: { BN: "Brunei", CI: "Elfenbeinküste", CV: "Kap Verde", MD: "Moldawien", TL: "Osttimor" },
  it: { CD: "Congo-Kinshasa" },
  fr: { VA: "Vatican", VN: "Vietnam" },
  cn: {},
  kr: { CD: "콩고 민주 공화국", CG: "콩고 공화국" },
  jp: { CC: "ココス諸島", CD: "コンゴ民主共和国", CG: "コンゴ共和国", MM: "ミャンマー" },
};

/**
 * Readings (kana) of the Japanese names that begin with kanji. ICU's Japanese collation orders kana by the
 * syllabary but puts kanji after all kana, by code point; Japanese lists file 日本 under に, 中国 under ち.
 */
export const JAPANESE_READINGS: Readonly<Record<string, string>> = {
  米領サモア: "べいりょうサモア",
  南極: "なんきょく",
  英領インド洋地域: "えいりょういんどようちいき",
  中央アフリカ共和国: "ちゅうおうアフリカきょうわこく",
  中国: "ちゅうごく",
  赤道ギニア: "せきどうギニア",
  仏領ギアナ: "ふつりょうギアナ",
  仏領ポリネシア: "ふつりょうポリネシア",
  仏領極南諸島: "ふつりょうきょくなんしょとう",
  香港: "ほんこん",
  日本: "にほん",
  北朝鮮: "きたちょうせん",
  韓国: "かんこく",
  北マリアナ諸島: "きたマリアナしょとう",
  北マケドニア: "きたマケドニア",
  南アフリカ: "みなみアフリカ",
  台湾: "たいわん",
  東ティモール: "ひがしティモール",
  合衆国領有小離島: "がっしゅうこくりょうゆうしょうりとう",
  英領ヴァージン諸島: "えいりょうヴァージンしょとう",
  米領ヴァージン諸島: "べいりょうヴァージンしょとう",
  西サハラ: "にしサハラ",
  南スーダン: "みなみスーダン",
};

const displayNames = new Map<string, Intl.DisplayNames>();
function namesIn(language: Language, style: "long" | "short"): Intl.DisplayNames {
  const key = `${language}:${style}`;
  let names = displayNames.get(key);
  if (!names) {
    names = new Intl.DisplayNames(NAME_LOCALE[language], { type: "region", style, fallback: "code" });
    displayNames.set(key, names);
  }
  return names;
}

/** A country's everyday name in a language. */
export function countryName(code: string, language: Language): string {
  const everyday = EVERYDAY[language][code];
  if (everyday) return everyday;
  return namesIn(language, SHORT_FORM.has(code) ? "short" : "long").of(code) ?? code;
}

/**
 * The key a name sorts by: its reading in Japanese, the name elsewhere. Chinese needs none: ICU's default
 * collation for zh is pinyin, and Korean sorts by Hangul.
 */
function sortKey(name: string, language: Language): string {
  return language === "jp" ? (JAPANESE_READINGS[name] ?? name) : name;
}

/** Every ISO 3166-1 country with its everyday name in a language, in the order people look for them there. */
export function countryList(language: Language): Country[] {
  const collator = new Intl.Collator(NAME_LOCALE[language]);
  return [...COUNTRY_CODES]
    .map((code) => ({ code, name: countryName(code, language) }))
    .map((country) => ({ country, key: sortKey(country.name, language) }))
    .sort((a, b) => collator.compare(a.key, b.key) || a.country.code.localeCompare(b.country.code))
    .map(({ country }) => country);
}
