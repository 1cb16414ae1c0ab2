import type { Catalog, Language } from "@gatehouse/contract";

/**
 * Each language's catalog as chunks of its own, cut in two (i18n/parts.ts) (the host page preloads the page's one). English is one of them, not
 * part of the entry: catalogs are complete (contract tests hold every key in every catalog), so an English
 * fallback is never needed at run time, and a non-English page does not pay for English (issue #9).
 */
const CATALOGS: Record<Language, () => Promise<{ default: Catalog }>> = {
  en: () => import("@gatehouse/contract/i18n/en.json"),
  es: () => import("@gatehouse/contract/i18n/es.json"),
  pt: () => import("@gatehouse/contract/i18n/pt.json"),
  de: () => import("@gatehouse/contract/i18n/de.json"),
  it: () => import("@gatehouse/contract/i18n/it.json"),
  fr: () => import("@gatehouse/contract/i18n/fr.json"),
  cn: () => import("@gatehouse/contract/i18n/cn.json"),
  kr: () => import("@gatehouse/contract/i18n/kr.json"),
  jp: () => import("@gatehouse/contract/i18n/jp.json"),
};

/** Each language's later part (i18n/parts.ts): the sections only the screens after sign-in show. */
const LATER_PARTS: Record<Language, () => Promise<{ default: Partial<Catalog> }>> = {
  en: () => import("@gatehouse/contract/i18n/en.json?later"),
  es: () => import("@gatehouse/contract/i18n/es.json?later"),
  pt: () => import("@gatehouse/contract/i18n/pt.json?later"),
  de: () => import("@gatehouse/contract/i18n/de.json?later"),
  it: () => import("@gatehouse/contract/i18n/it.json?later"),
  fr: () => import("@gatehouse/contract/i18n/fr.json?later"),
  cn: () => import("@gatehouse/contract/i18n/cn.json?later"),
  kr: () => import("@gatehouse/contract/i18n/kr.json?later"),
  jp: () => import("@gatehouse/contract/i18n/jp.json?later"),
};

export async function fetchLaterPart(language: Language): Promise<Partial<Catalog>> {
  return (await LATER_PARTS[language]()).default;
}

/** A language's first part: what the login route and the app's frame show. */
export async function fetchCatalog(language: Language): Promise<Catalog> {
  return (await CATALOGS[language]()).default;
}
