import type { Language } from "@gatehouse/contract";
import { cloneElement, Fragment, type ReactElement, type ReactNode, useCallback, useSyncExternalStore } from "react";
import { i18nState, subscribeI18n } from "./index.ts";
import { type Key, translate, type Values } from "./translate.ts";

export type TFunction = (key: Key, values?: Values) => string;

/** The current language's `t` (typed keys) and the language; a component re-renders when the language changes. */
export function useTranslation(): { t: TFunction; i18n: { language: Language } } {
  const { language, catalog } = useSyncExternalStore(subscribeI18n, i18nState);
  const t = useCallback<TFunction>((key, values) => translate(catalog, key, values), [catalog]);
  return { t, i18n: { language } };
}

const TAG = /<(\w+)>(.*?)<\/\1>/gsu;

/**
 * A translation whose words carry elements: `<recover>Forgot your password?</recover>` becomes the `recover`
 * component with those words inside. Tags without a component show their words as plain text.
 */
export function Trans({
  i18nKey,
  values,
  components,
}: {
  i18nKey: Key;
  values?: Values;
  components: Record<string, ReactElement<{ children?: ReactNode }>>;
}) {
  const { t } = useTranslation();
  const text = t(i18nKey, values);
  const parts: ReactNode[] = [];
  let last = 0;
  for (const match of text.matchAll(TAG)) {
    const [whole, name = "", words] = match;
    parts.push(text.slice(last, match.index));
    const component = components[name];
    parts.push(component ? cloneElement(component, { key: match.index }, words) : words);
    last = match.index + whole.length;
  }
  parts.push(text.slice(last));
  return <Fragment>{parts}</Fragment>;
}
