import { type Catalog, LANGUAGE_COOKIE, LANGUAGES, type Language } from "@gatehouse/contract";
import { fetchCatalog } from "./catalogs.ts";

/**
 * The page's language and its catalog: a small store of our own instead of i18next + react-i18next (issue #9,
 * docs/decisions.md). Components read it through `useTranslation` (react.tsx).
 */
interface I18nState {
  language: Language;
  catalog: Catalog | undefined;
}

let state: I18nState = { language: "en", catalog: undefined };
const listeners = new Set<() => void>();

export function i18nState(): I18nState {
  return state;
}

export function subscribeI18n(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The page's language now (the API client sends it as Accept-Language). */
export function currentLanguage(): Language {
  return state.language;
}

function use(language: Language, catalog: Catalog): void {
  state = { language, catalog };
  document.documentElement.lang = LANGUAGES[language].tag;
  for (const listener of listeners) listener();
}

/** Loads the page's language's catalog (the host page preloads it) and makes it current. */
export async function startI18n(language: Language): Promise<void> {
  use(language, await fetchCatalog(language));
}

/** Switches language, remembers it in the language cookie for a year (spec §1), and loads its catalog. */
export async function switchLanguage(language: Language): Promise<void> {
  const catalog = await fetchCatalog(language);
  // biome-ignore lint/suspicious/noDocumentCookie: a plain preference cookie read by the server; no secret.
  document.cookie = `${LANGUAGE_COOKIE}=${language}; Path=/; Max-Age=31536000; SameSite=Lax`;
  use(language, catalog);
}
