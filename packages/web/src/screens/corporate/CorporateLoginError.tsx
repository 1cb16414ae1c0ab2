import { ERROR_PAGE_CODES, type ErrorPageCode, routeUrl } from "@gatehouse/contract";
import { useTranslation } from "react-i18next";
import { Layout } from "../../app/Layout.tsx";
import { Link, useSearchParams } from "../../app/routing.tsx";
import { usePageTitle } from "../../app/title.ts";
import { buttonClass } from "../../ui/Button.tsx";
import styles from "./Corporate.module.css";

const isKnown = (code: string | null): code is ErrorPageCode =>
  (ERROR_PAGE_CODES as readonly string[]).includes(code ?? "");

/**
 * /corporate_login/error?error_code=&error_id= (spec §2, issue #11): where a company's sign-in that failed or was
 * refused lands. Title and body by the code, in the error page's words (a code it does not know reads as the
 * company's sign-in failing, never as raw text from the address); the reference; Try again and sign-in.
 */
export default function CorporateLoginError() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const code = params.get("error_code");
  const id = params.get("error_id");
  const known: ErrorPageCode = isKnown(code) ? code : "external_idp_error";
  usePageTitle(t("titles.signInFailed"));
  return (
    <Layout>
      <h1>{t(`errorPage.${known}.title`)}</h1>
      <p>{t(`errorPage.${known}.body`)}</p>
      {id ? <p>{t("app.ref", { id })}</p> : null}
      <div className={styles.actions}>
        <Link className={buttonClass} to={routeUrl("CORPORATE_LOGIN")}>
          {t("corporateLoginError.tryAgain")}
        </Link>
        <Link to={routeUrl("LOGIN")}>{t("app.backToSignIn")}</Link>
      </div>
    </Layout>
  );
}
