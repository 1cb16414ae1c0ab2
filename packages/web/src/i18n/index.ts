import { type Catalog, LANGUAGE_COOKIE, LANGUAGES, type Language } from "@gatehouse/contract";
import i18next from "i18next";
import { initReactI18next } from "react-i18next";
import { fetchCatalog, fetchLaterPart } from "./catalogs.ts";

declare module "i18next" {
  interface CustomTypeOptions {
    resources: { translation: Catalog };
  }
}

/**
 * Starts i18next with the page's language only (ARCHITECTURE.md: i18next + react-i18next). Its catalog is a chunk
 * of its own that the host page preloads; English is not bundled as a fallback, since every catalog holds every
 * key (contract tests), and a missing key would show the key itself (issue #9, docs/decisions.md).
 */
export async function startI18n(language: Language): Promise<void> {
  pageLanguage = language;
  await i18next.use(initReactI18next).init({
    lng: language,
    fallbackLng: false,
    resources: { [language]: { translation: await fetchCatalog(language) } },
    interpolation: { escapeValue: false },
    returnNull: false,
  });
  document.documentElement.lang = LANGUAGES[language].tag;
}

/** The language the page started in, known before i18next has its catalog (the session call starts first). */
let pageLanguage: Language = "en";

/** The page's language now (the API client sends it as Accept-Language). */
export function currentLanguage(): Language {
  return (i18next.language as Language | undefined) ?? pageLanguage;
}

/** The later parts asked for, by language: each is fetched once and added to its language's strings. */
const laterParts = new Map<Language, Promise<void>>();

/**
 * Makes sure the page's language has its later part (the strings of every screen but sign-in), as a screen other
 * than sign-in loads; once asked for, a language switch brings the new language's later part too.
 */
export function loadLaterStrings(language: Language = currentLanguage()): Promise<void> {
  let loading = laterParts.get(language);
  if (!loading) {
    loading = fetchLaterPart(language).then((part) => {
      i18next.addResourceBundle(language, "translation", part, true, true);
    });
    loading.catch(() => laterParts.delete(language));
    laterParts.set(language, loading);
  }
  return loading;
}

/** Switches language, remembers it in the language cookie for a year (spec §1), and loads its catalog. */
export async function switchLanguage(language: Language): Promise<void> {
  if (!i18next.hasResourceBundle(language, "translation")) {
    i18next.addResourceBundle(language, "translation", await fetchCatalog(language));
  }
  if (laterParts.size > 0) await loadLaterStrings(language);
  // biome-ignore lint/suspicious/noDocumentCookie: a plain preference cookie read by the server; no secret.
  document.cookie = `${LANGUAGE_COOKIE}=${language}; Path=/; Max-Age=31536000; SameSite=Lax`;
  document.documentElement.lang = LANGUAGES[language].tag;
  await i18next.changeLanguage(language);
}
