import {
  type BrandId,
  checkReturnTo,
  DEFAULT_COUNTRY,
  isBrandId,
  isLanguage,
  LANGUAGE_COOKIE,
  type Language,
  languageFromAcceptLanguage,
  pickLanguage,
} from "@gatehouse/contract";
import type { FastifyRequest } from "fastify";
import type { Origin } from "../accounts/origin.ts";
import type { Config } from "../config.ts";
import { type MailSite, mailSite } from "../mail/links.ts";
import { siteOf } from "../settings/sites.ts";

/**
 * The brand an API call is made for: the host name's site from the brands file; outside production the page's
 * theme (sent by the web app in X-Gatehouse-Theme) may override it, as `?theme=` does for pages.
 */
export function requestBrand(request: FastifyRequest, config: Config): BrandId {
  const theme = request.headers["x-gatehouse-theme"];
  if (!config.production && isBrandId(theme)) return theme;
  return siteOf(config, request.hostname)?.brand ?? config.brands.defaultBrand;
}

/**
 * Where mail about this request links to: the request's brand at the origin the brands file gives it, in the
 * language of the page that made the call. The Host header only picks among configured brands; it never becomes
 * part of a link (host-header poisoning).
 */
export function requestSite(request: FastifyRequest, config: Config): MailSite {
  return { ...mailSite(config, requestBrand(request, config)), language: actingLanguage(request) };
}

/** Where the visitor's country comes from: the proxy's header, believed only from a trusted proxy. */
export type CountrySource = Pick<Config, "countryHeader" | "trustedProxy">;

/**
 * The visitor's upper-cased country from the proxy's country header (COUNTRY_HEADER), else ZZ. The country picks
 * the CN image captcha over the proof of work, so a client must not choose it: the header counts only when the
 * connection comes from a trusted proxy (TRUST_PROXY), which sets it (ASVS 4.1.3: headers set by the
 * infrastructure cannot be overridden by the client).
 */
export function visitorCountry(request: FastifyRequest, source: CountrySource): string {
  if (!source.trustedProxy(request.socket.remoteAddress)) return DEFAULT_COUNTRY;
  const value = request.headers[source.countryHeader];
  const country = (Array.isArray(value) ? value[0] : value)?.trim().toUpperCase();
  return country && /^[A-Z]{2}$/u.test(country) && country !== "XX" && country !== "T1" ? country : DEFAULT_COUNTRY;
}

/** Language for a page: cookie, then return-URL path, then country (spec §1). */
export function pageLanguage(request: FastifyRequest, source: CountrySource, returnTo: string | undefined): Language {
  return pickLanguage({ cookie: request.cookies[LANGUAGE_COOKIE], returnTo, country: visitorCountry(request, source) });
}

/** Language for an API answer: cookie, then the client's Accept-Language (the SPA sends its own), then country. */
export function apiLanguage(request: FastifyRequest, source: CountrySource): Language {
  const cookie = request.cookies[LANGUAGE_COOKIE];
  const accepted = languageFromAcceptLanguage(request.headers["accept-language"]);
  return pickLanguage({ cookie: isLanguage(cookie) ? cookie : accepted, country: visitorCountry(request, source) });
}

/**
 * The language of the page a person acted on, for the mail the call causes (docs/decisions.md "Mail follows the
 * page's language"). The web app sends its page's language as Accept-Language on every call (api/client.ts), so
 * that comes first, before the cookie, which may hold another choice: a page opened from a mailed link shows the
 * mail's language without changing the cookie. Only one of our nine languages counts. A call that names none
 * has no page behind it, and its mail keeps the account's language (undefined).
 */
export function actingLanguage(request: FastifyRequest): Language | undefined {
  const cookie = request.cookies[LANGUAGE_COOKIE];
  return languageFromAcceptLanguage(request.headers["accept-language"]) ?? (isLanguage(cookie) ? cookie : undefined);
}

/**
 * The origin of a sign-up: language, the brand's site, and the return address when it is allowed. A path given
 * as return address resolves on the brand's site, where the mailed link opens.
 */
export function originOf(request: FastifyRequest, services: { config: Config }, returnTo: string | undefined): Origin {
  const { config } = services;
  const site = requestSite(request, config);
  return {
    // A new account keeps the page's language; without one, the country's (spec §1).
    language: site.language ?? pickLanguage({ country: visitorCountry(request, config) }),
    site,
    returnTo: checkReturnTo(returnTo, { allowedHosts: config.brands.returnHosts, selfOrigin: site.origin }),
  };
}
