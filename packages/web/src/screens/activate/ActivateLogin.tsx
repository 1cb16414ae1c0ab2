import { api, safeReturnTo } from "@gatehouse/contract";
import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import { useApp } from "../../app/context.tsx";
import { Layout } from "../../app/Layout.tsx";
import { useMailedCode } from "../../app/mailed-code.ts";
import { useSearchParams } from "../../app/routing.tsx";
import { usePageTitle } from "../../app/title.ts";
import { landingPage } from "../login/destination.ts";
import { ActivationError, useActivation } from "./outcome.tsx";

/** /account/activate/login?code=&return_to= : activates, signs in, continues to return_to (issue #3). */
export default function ActivateLogin() {
  const [params] = useSearchParams();
  const { brand, returnPolicy } = useApp();
  const { t } = useTranslation();
  usePageTitle(t("titles.activateAccount"));
  const outcome = useActivation(api.activationLogin, useMailedCode());
  const destination = safeReturnTo(params.get("return_to"), returnPolicy, landingPage(brand));
  useEffect(() => {
    if (outcome.state === "ok") window.location.assign(destination);
  }, [outcome.state, destination]);
  return (
    <Layout>
      {outcome.state === "error" ? (
        <ActivationError outcome={outcome} returnTo={params.get("return_to") ?? undefined} />
      ) : (
        <p role="status">{t("activate.signingIn")}</p>
      )}
    </Layout>
  );
}
