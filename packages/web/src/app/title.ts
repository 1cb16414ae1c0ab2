import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import { useApp } from "./context.tsx";

/** Sets "<title> | <brand>" (spec §2 page titles). */
export function usePageTitle(title: string): void {
  const { brand } = useApp();
  const { t } = useTranslation();
  useEffect(() => {
    document.title = t("app.pageTitle", { title, brand: brand.name });
  }, [t, title, brand.name]);
}
