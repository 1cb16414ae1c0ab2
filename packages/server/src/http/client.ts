import {
  type BrandId,
  DEFAULT_COUNTRY,
  isBrandId,
  isLanguage,
  LANGUAGE_COOKIE,
  type Language,
  languageFromAcceptLanguage,
  pickLanguage,
} from "@gatehouse/contract";
import type { FastifyRequest } from "fastify";
import type { Config } from "../config.ts";

/**
 * The brand an API call is made for: the host name's site from the brands file; outside production the page's
 * theme (sent by the web app in X-Gatehouse-Theme) may override it, as `?theme=` does for pages.
 */
export function requestBrand(request: FastifyRequest, config: Config): BrandId {
  const theme = request.headers["x-gatehouse-theme"];
  if (!config.production && isBrandId(theme)) return theme;
  const site = config.brands.sites.find((s) => s.host === request.hostname.toLowerCase());
  return site?.brand ?? config.brands.defaultBrand;
}

/** The visitor's upper-cased country from the proxy's country header (COUNTRY_HEADER), else ZZ. */
export function visitorCountry(request: FastifyRequest, header: string): string {
  const value = request.headers[header];
  const country = (Array.isArray(value) ? value[0] : value)?.trim().toUpperCase();
  return country && /^[A-Z]{2}$/u.test(country) && country !== "XX" && country !== "T1" ? country : DEFAULT_COUNTRY;
}

/** Language for a page: cookie, then return-URL path, then country (spec §1). */
export function pageLanguage(request: FastifyRequest, header: string, returnTo: string | undefined): Language {
  return pickLanguage({ cookie: request.cookies[LANGUAGE_COOKIE], returnTo, country: visitorCountry(request, header) });
}

/** Language for an API answer: cookie, then the client's Accept-Language (the SPA sends its own), then country. */
export function apiLanguage(request: FastifyRequest, header: string): Language {
  const cookie = request.cookies[LANGUAGE_COOKIE];
  const accepted = languageFromAcceptLanguage(request.headers["accept-language"]);
  return pickLanguage({ cookie: isLanguage(cookie) ? cookie : accepted, country: visitorCountry(request, header) });
}
