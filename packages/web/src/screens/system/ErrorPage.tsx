import { ERROR_PAGE_CODES, type ErrorPageCode, ROUTES } from "@gatehouse/contract";
import { useTranslation } from "react-i18next";
import { Layout } from "../../app/Layout.tsx";
import { Link, useSearchParams } from "../../app/routing.tsx";
import { usePageTitle } from "../../app/title.ts";

const isKnown = (code: string | null): code is ErrorPageCode =>
  (ERROR_PAGE_CODES as readonly string[]).includes(code ?? "");

/**
 * /error?error_code=&error_description=&error_id= (spec §2): a known code picks title and body; an unknown one
 * shows error_description, else the internal-error text, never the raw code (issue #25: a code is not words).
 * error_id is shown as Ref.
 */
export default function ErrorPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const code = params.get("error_code");
  const description = params.get("error_description");
  const id = params.get("error_id");
  const known = isKnown(code) ? code : undefined;
  const title = known ? t(`errorPage.${known}.title`) : t("errorPage.defaultTitle");
  const body = known ? t(`errorPage.${known}.body`) : description || t("errorPage.internal_server_error.body");
  usePageTitle(t("titles.error"));
  return (
    <Layout>
      <h1>{title}</h1>
      <p>{body}</p>
      {id ? <p>{t("app.ref", { id })}</p> : null}
      <Link to={ROUTES.LOGIN.path}>{t("app.backToSignIn")}</Link>
    </Layout>
  );
}
