import { useEffect } from "react";
import { useTranslation } from "../i18n/react.tsx";
import { useApp } from "./context.tsx";

/** Sets "<title> | <brand>" (spec §2 page titles). */
export function usePageTitle(title: string): void {
  const { brand } = useApp();
  const { t } = useTranslation();
  useEffect(() => {
    document.title = t("app.pageTitle", { title, brand: brand.name });
  }, [t, title, brand.name]);
}
