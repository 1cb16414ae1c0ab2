import { api, LANGUAGE_CODES, LANGUAGES, type Language } from "@gatehouse/contract";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Config } from "../config.ts";
import { countryList } from "../countries.ts";
import { apiLanguage } from "../http/client.ts";

/** Every language's list, serialised once at start: the names and their order never change while we run. */
function buildLists(): Record<Language, string> {
  return Object.fromEntries(
    LANGUAGE_CODES.map((language) => [language, JSON.stringify(countryList(language))]),
  ) as Record<Language, string>;
}

export const countryRoutes: FastifyPluginAsyncZod<{ config: Config }> = async (app, { config }) => {
  const lists = buildLists();
  app.get(`/api${api.countries.path}`, async (request, reply) => {
    const language = apiLanguage(request, config);
    reply.header("content-language", LANGUAGES[language].tag).header("vary", "Accept-Language, Cookie");
    return reply.type("application/json; charset=utf-8").send(lists[language]);
  });
};
