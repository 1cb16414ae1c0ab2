import { type BrandId, isLanguage } from "@gatehouse/contract";
import type { Config } from "../config.ts";

/** Where a mail's links open: the brand the person acted on, and that brand's origin from the brands file. */
export interface MailSite {
  readonly brand: BrandId;
  readonly origin: string;
}

/** The site of a brand: its configured origin, never a request's Host header (config.ts `brandOrigins`). */
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
