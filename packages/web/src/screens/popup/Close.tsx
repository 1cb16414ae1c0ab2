import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import { useApp } from "../../app/context.tsx";
import { Layout } from "../../app/Layout.tsx";
import { useSearchParams } from "../../app/routing.tsx";
import { usePageTitle } from "../../app/title.ts";
import { openerTarget, POPUP_OPENER_PARAM, tellOpener } from "./opener.ts";

/**
 * /close?origin= (spec §2 "CLOSE"): the end of the sign-in popup. It tells the window that opened it, at an allowed
 * origin only, that the popup may close, then closes itself. Without an opener, for a refused origin, or when the
 * browser keeps the window open, it tells the person to close it, and offers the brand's site (no dead end).
 */
export default function Close() {
  const { t } = useTranslation();
  const { brand, returnPolicy } = useApp();
  const [params] = useSearchParams();
  const popupOpener: Window | null = window.opener;
  const target = openerTarget(popupOpener, params.get(POPUP_OPENER_PARAM), returnPolicy);
  usePageTitle(t("titles.closeWindow"));
  useEffect(() => {
    if (!popupOpener || !target) return;
    tellOpener(popupOpener, target);
    // A browser closes only windows a script opened; any other stays, saying it can be closed.
    window.close();
  }, [target]);
  return (
    <Layout>
      <h1>{t("titles.closeWindow")}</h1>
      <p role="status">{t("app.closeWindow")}</p>
      <p>
        <a href={brand.links.home}>{t("loginSuccess.home", { brand: brand.name })}</a>
      </p>
    </Layout>
  );
}
