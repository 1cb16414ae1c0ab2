import { ROUTES } from "@gatehouse/contract";
import { useTranslation } from "react-i18next";
import { Layout } from "../../app/Layout.tsx";
import { Link } from "../../app/routing.tsx";
import { usePageTitle } from "../../app/title.ts";
import { buttonClass } from "../../ui/Button.tsx";

/** Unknown routes, and routes whose screens belong to later work (spec §2). */
export default function NotFound() {
  const { t } = useTranslation();
  usePageTitle(t("titles.notFound"));
  return (
    <Layout>
      <h1>{t("notFound.heading")}</h1>
      <p>{t("notFound.body")}</p>
      <Link className={buttonClass} to={ROUTES.LOGIN.path}>
        {t("notFound.home")}
      </Link>
    </Layout>
  );
}
