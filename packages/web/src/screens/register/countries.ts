import { api, DEFAULT_COUNTRY, type Language } from "@gatehouse/contract";
import { useEffect, useMemo, useState } from "react";
import { gateway, isScreenFailure } from "../../api/index.ts";
import { useScreenFailure } from "../../app/failure.tsx";

/** The visitor's country from the host page when it is a real one (not ZZ, "unknown"), to start the select on. */
export function presetCountry(country: string): string {
  return /^[A-Z]{2}$/u.test(country) && country !== DEFAULT_COUNTRY ? country : "";
}

/**
 * The country options, named and ordered for the page's language by the server, fetched when `wanted` first
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
  // The server sends the list in the order people look for names in this language (kanji by reading in
  // Japanese, which no Intl.Collator does), so it is shown as it comes.
  return useMemo(() => (loaded?.list ?? []).map((c) => ({ value: c.code, label: c.name })), [loaded]);
}

/** The part of a form the country select needs: its `countryCode` value. */
interface CountryForm {
  getValues(name: "countryCode"): string | undefined;
  setValue(name: "countryCode", value: string): void;
}

/**
 * The country options for a form's `countryCode` select (registration, social and trial registration). A select
 * shows its value only once the option exists: once the options are in, the form's value (the visitor's own
 * country from the host page, or what they chose) is put back on the select, or cleared when it is not a choice.
 */
export function useCountrySelect(
  language: Language,
  wanted: boolean,
  form: CountryForm,
): { value: string; label: string }[] {
  const countries = useCountryOptions(language, wanted);
  useEffect(() => {
    if (!wanted || countries.length === 0) return;
    const chosen = form.getValues("countryCode");
    form.setValue("countryCode", countries.some((c) => c.value === chosen) ? (chosen as string) : "");
  }, [wanted, countries, form]);
  return countries;
}
