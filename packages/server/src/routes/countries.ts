import { createRequire } from "node:module";
import { api, LANGUAGE_CODES, LANGUAGES, type Language } from "@gatehouse/contract";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import countries from "i18n-iso-countries";
import type { Config } from "../config.ts";
import { apiLanguage } from "../http/client.ts";

const require = createRequire(import.meta.url);
/** i18n-iso-countries names its locales by ISO 639-1. */
const LOCALE: Record<Language, string> = {
  en: "en",
  es: "es",
  pt: "pt",
  de: "de",
  it: "it",
  fr: "fr",
  cn: "zh",
  kr: "ko",
  jp: "ja",
};

/** Every ISO 3166-1 country with its name in each language, sorted for that language; built once at start. */
function buildLists(): Record<Language, string> {
  const lists = {} as Record<Language, string>;
  for (const language of LANGUAGE_CODES) {
    const locale = LOCALE[language];
    countries.registerLocale(require(`i18n-iso-countries/langs/${locale}.json`));
    const collator = new Intl.Collator(LANGUAGES[language].tag);
    const names = countries.getNames(locale, { select: "official" });
    const list = Object.entries(names)
      .map(([code, name]) => ({ code, name }))
      .sort((a, b) => collator.compare(a.name, b.name));
    lists[language] = JSON.stringify(list);
  }
  return lists;
}

export const countryRoutes: FastifyPluginAsyncZod<{ config: Config }> = async (app, { config }) => {
  const lists = buildLists();
  app.get(`/api${api.countries.path}`, async (request, reply) => {
    const language = apiLanguage(request, config);
    reply.header("content-language", LANGUAGES[language].tag).header("vary", "Accept-Language, Cookie");
    return reply.type("application/json; charset=utf-8").send(lists[language]);
  });
};
