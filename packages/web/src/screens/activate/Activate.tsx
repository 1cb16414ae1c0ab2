import { api, ROUTES } from "@gatehouse/contract";
import { useTranslation } from "react-i18next";
import { useApp } from "../../app/context.tsx";
import { Layout } from "../../app/Layout.tsx";
import { useMailedCode } from "../../app/mailed-code.ts";
import { Link } from "../../app/routing.tsx";
import { usePageTitle } from "../../app/title.ts";
import { buttonClass } from "../../ui/Button.tsx";
import { ActivationError, useActivation } from "./outcome.tsx";

/** /account/activate?code= (spec §2 "Activation result"). */
export default function Activate() {
  const { brand } = useApp();
  const { t } = useTranslation();
  usePageTitle(t("titles.activateAccount"));
  const outcome = useActivation(api.activate, useMailedCode());
  return (
    <Layout>
      {outcome.state === "working" ? <p role="status">{t("activate.inProgress")}</p> : null}
      {outcome.state === "ok" ? (
        <>
          <h1>
            {brand.traits.richWelcome
              ? t("activate.welcomeHeading", { brand: brand.name })
              : t("activate.successHeading")}
          </h1>
          <p>
            {brand.traits.richWelcome ? t("activate.welcomeBody", { brand: brand.name }) : t("activate.successBody")}
          </p>
          <Link className={buttonClass} to={ROUTES.LOGIN.path}>
            {t("activate.signIn")}
          </Link>
        </>
      ) : null}
      {outcome.state === "error" ? <ActivationError outcome={outcome} /> : null}
    </Layout>
  );
}
