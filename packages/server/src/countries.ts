import countries from "i18n-iso-countries";

/** ISO 3166-1 alpha-2 codes we accept as a country. */
export const COUNTRY_CODES: ReadonlySet<string> = new Set(Object.keys(countries.getAlpha2Codes()));
