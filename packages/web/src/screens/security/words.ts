import {
  BRANDS,
  type BrandId,
  DEFAULT_COUNTRY,
  LANGUAGES,
  type Language,
  type SignInMethod,
} from "@gatehouse/contract";
import type { TFunction } from "i18next";

/** The BCP 47 tag the page's language formats dates and country names in (`jp` → `ja`). */
export const localeOf = (language: string): string => LANGUAGES[language as Language]?.tag ?? "en";

type Device = { browser: string | null; os: string | null };

/** "Chrome 131 on Windows 10"; a browser without a known system is named alone; unknown → "Unknown browser". */
export function deviceWords(t: TFunction, device: Device): string {
  const browser = device.browser ?? t("securityPage.unknownBrowser");
  return device.os ? t("securityPage.device", { browser, os: device.os }) : browser;
}

/** The country's name in the page's language (Intl.DisplayNames); nothing when unknown (ZZ is "Unknown Region"). */
export function countryName(locale: string, code: string | null): string | undefined {
  if (!code || code === DEFAULT_COUNTRY || !/^[A-Z]{2}$/u.test(code)) return undefined;
  try {
    return new Intl.DisplayNames([locale], { type: "region", fallback: "none" }).of(code) ?? undefined;
  } catch {
    return undefined;
  }
}

/** A moment as the page's language writes a date and time ("3 Nov 2026, 14:05"). */
export const dateTime = (locale: string, at: number): string =>
  new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short" }).format(at);

/** A date alone ("3 Nov 2026"). */
export const dateOnly = (locale: string, at: number): string =>
  new Intl.DateTimeFormat(locale, { dateStyle: "medium" }).format(at);

const UNITS: readonly [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 365 * 24 * 3600],
  ["month", 30 * 24 * 3600],
  ["week", 7 * 24 * 3600],
  ["day", 24 * 3600],
  ["hour", 3600],
  ["minute", 60],
];

/** How long ago, in the page's language ("5 minutes ago", "yesterday"); under a minute is "now". */
export function timeAgo(locale: string, at: number, now = Date.now()): string {
  const seconds = Math.max(0, (now - at) / 1000);
  const format = new Intl.RelativeTimeFormat(locale, { numeric: "auto" });
  for (const [unit, size] of UNITS) {
    if (seconds >= size) return format.format(-Math.floor(seconds / size), unit);
  }
  return format.format(0, "second");
}

/** The identity providers' own names (they are names, the same in every language). */
const PROVIDER_NAMES: Record<string, string> = { google: "Google", facebook: "Facebook", trimble: "Trimble" };
export const providerName = (provider: string): string => PROVIDER_NAMES[provider] ?? provider;

/**
 * How a sign-in was made, as the words after "with": "a passkey", "Google" (the provider, when it is named);
 * undefined when neither is known.
 */
export function methodWords(t: TFunction, method: SignInMethod | null, provider: string | null): string | undefined {
  if (provider && (method === "social" || method === "corporate" || method === null)) return providerName(provider);
  return method ? t(`securityPage.methods.${method}`) : undefined;
}

/** A brand's name, for an app of that brand; undefined for a client of no (known) brand. */
export const brandName = (brand: string | null): string | undefined =>
  brand && Object.hasOwn(BRANDS, brand) ? BRANDS[brand as BrandId].name : undefined;
