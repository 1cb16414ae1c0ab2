import { api, ROUTES, safeReturnTo } from "@gatehouse/contract";
import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import { Link, useSearchParams } from "react-router";
import { useApp } from "../../app/context.tsx";
import { Layout } from "../../app/Layout.tsx";
import { usePageTitle } from "../../app/title.ts";
import { Alert } from "../../ui/Alert.tsx";
import { useT } from "../../ui/useT.ts";
import { landingPage } from "../login/destination.ts";
import { useActivation } from "./outcome.ts";

/** /account/activate/login?code=&return_to= : activates, signs in, continues to return_to (issue #3). */
export default function ActivateLogin() {
  const [params] = useSearchParams();
  const { brand, returnPolicy } = useApp();
  const { t } = useTranslation();
  const tk = useT();
  usePageTitle(t("titles.activateAccount"));
  const outcome = useActivation(api.activationLogin, params.get("code"));
  const destination = safeReturnTo(params.get("return_to"), returnPolicy, landingPage(brand));
  useEffect(() => {
    if (outcome.state === "ok") window.location.assign(destination);
  }, [outcome.state, destination]);
  return (
    <Layout>
      {outcome.state === "error" ? (
        <>
          <h1>{t("activate.errorHeading")}</h1>
          <Alert kind="error">
            <p>{tk(outcome.code)}</p>
            {outcome.guid ? <p>{t("app.ref", { id: outcome.guid })}</p> : null}
          </Alert>
          <Link to={ROUTES.LOGIN.path}>{t("app.backToSignIn")}</Link>
        </>
      ) : (
        <p role="status">{t("activate.signingIn")}</p>
      )}
    </Layout>
  );
}
