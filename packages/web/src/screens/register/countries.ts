import { api, DEFAULT_COUNTRY, LANGUAGES, type Language } from "@gatehouse/contract";
import { useEffect, useMemo, useState } from "react";
import { gateway, isScreenFailure } from "../../api/index.ts";
import { useScreenFailure } from "../../app/failure.tsx";

/** The visitor's country from the host page when it is a real one (not ZZ, "unknown"), to start the select on. */
export function presetCountry(country: string): string {
  return /^[A-Z]{2}$/u.test(country) && country !== DEFAULT_COUNTRY ? country : "";
}

/**
 * The country options, named in the page's language and sorted by its collation, fetched when `wanted` first
 * holds and again when the language changes.
 */
export function useCountryOptions(language: Language, wanted: boolean): { value: string; label: string }[] {
  const fail = useScreenFailure();
  const [loaded, setLoaded] = useState<{ language: Language; list: { code: string; name: string }[] }>();
  const current = loaded?.language === language;
  useEffect(() => {
    if (!wanted || current) return;
    gateway()
      .call(api.countries)
      .then(
        (list) => setLoaded({ language, list }),
        (error) => (isScreenFailure(error) ? fail(error) : undefined),
      );
  }, [wanted, current, language, fail]);
  return useMemo(() => {
    const collator = new Intl.Collator(LANGUAGES[language]?.tag ?? "en");
    return [...(loaded?.list ?? [])]
      .sort((a, b) => collator.compare(a.name, b.name))
      .map((c) => ({ value: c.code, label: c.name }));
  }, [loaded, language]);
}
