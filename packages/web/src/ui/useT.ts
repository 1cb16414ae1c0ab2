import { useTranslation } from "react-i18next";

/**
 * Translation by a key known only at run time (an error code, a validator's message key). Static keys use
 * `useTranslation().t`, which the English catalog types; tests pin that every dynamic key exists.
 */
export function useT(): (key: string, options?: Record<string, unknown>) => string {
  const { t } = useTranslation();
  return (key, options) => t(key as never, options as never) as unknown as string;
}
