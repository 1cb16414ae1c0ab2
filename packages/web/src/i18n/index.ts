import {
  type Catalog,
  englishCatalog,
  LANGUAGE_COOKIE,
  LANGUAGES,
  type Language,
  loadCatalog,
} from "@gatehouse/contract";
import i18next from "i18next";
import { initReactI18next } from "react-i18next";

declare module "i18next" {
  interface CustomTypeOptions {
    resources: { translation: Catalog };
  }
}

/** Starts i18next with English (always bundled, the fallback) and the page's language, loaded on demand. */
export async function startI18n(language: Language): Promise<typeof i18next> {
  const resources: Partial<Record<Language, { translation: Catalog }>> = { en: { translation: englishCatalog } };
  if (language !== "en") resources[language] = { translation: await loadCatalog(language) };
  await i18next.use(initReactI18next).init({
    lng: language,
    fallbackLng: "en",
    resources,
    interpolation: { escapeValue: false },
    returnNull: false,
  });
  document.documentElement.lang = LANGUAGES[language].tag;
  return i18next;
}

/** Switches language, remembers it in the language cookie for a year (spec §1), and loads its catalog. */
export async function switchLanguage(language: Language): Promise<void> {
  if (!i18next.hasResourceBundle(language, "translation")) {
    i18next.addResourceBundle(language, "translation", await loadCatalog(language));
  }
  // biome-ignore lint/suspicious/noDocumentCookie: a plain preference cookie read by the server; no secret.
  document.cookie = `${LANGUAGE_COOKIE}=${language}; Path=/; Max-Age=31536000; SameSite=Lax`;
  document.documentElement.lang = LANGUAGES[language].tag;
  await i18next.changeLanguage(language);
}
