import { type BrandId, isLanguage, type Language } from "@gatehouse/contract";
import type { Config } from "../config.ts";

/**
 * Where the person acted, for the mail it causes: the brand, that brand's origin from the brands file (where the
 * mail's links open), and the language of the page they acted on. Without a page (the admin CLI) there is no
 * language, and mail keeps the account's (docs/decisions.md "Mail follows the page's language").
 */
export interface MailSite {
  readonly brand: BrandId;
  readonly origin: string;
  readonly language?: Language | undefined;
}

/** The site of a brand, with no page behind it: its configured origin, never a request's Host header (config.ts `brandOrigins`). */
export function mailSite(config: Pick<Config, "brandOrigins">, brand: BrandId): MailSite {
  return { brand, origin: config.brandOrigins[brand] };
}

/** The query parameter that opens a mailed link's page in the mail's language (the host page honours it). */
export const LINK_LANGUAGE_PARAM = "lang";

/**
 * An absolute link on the site for a path of ours (`routeUrl(…)`), carrying the mail's language, so the page
 * opens in the language the mail was written in, whatever browser or device opens it.
 */
export function mailLink(site: MailSite, path: string, language: string): string {
  const url = new URL(path, site.origin);
  if (url.origin !== site.origin) throw new Error(`mail links stay on the brand's site, not ${url.origin}`);
  url.searchParams.set(LINK_LANGUAGE_PARAM, isLanguage(language) ? language : "en");
  return url.href;
}

/** The language a mail about this user is written in: the page's the person acted on, else the account's. */
export function mailLanguage(site: MailSite, accountLanguage: string): Language {
  if (site.language) return site.language;
  return isLanguage(accountLanguage) ? accountLanguage : "en";
}
