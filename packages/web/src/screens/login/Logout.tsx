import { api, DESKTOP_APP_BRAND_PARAM, ROUTES, routeUrl } from "@gatehouse/contract";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { gateway, isScreenFailure } from "../../api/index.ts";
import { useScreenFailure } from "../../app/failure.tsx";
import { Layout } from "../../app/Layout.tsx";
import { Link, navigate, useSearchParams } from "../../app/routing.tsx";
import { usePageTitle } from "../../app/title.ts";
import { forgetTrialFlow } from "../trial/flow.ts";

/**
 * /logout?ua= (spec §2, §7): ends the server session, then confirms. A desktop app (`ua` given) ends on the
 * desktop-app sign-out page instead, in the app's wording (`client_brand` passes on; docs/decisions.md).
 */
export default function Logout() {
  const [params] = useSearchParams();
  const ua = params.get("ua") || undefined;
  const clientBrand = params.get(DESKTOP_APP_BRAND_PARAM) ?? undefined;
  const { t } = useTranslation();
  const fail = useScreenFailure();
  const [done, setDone] = useState(false);
  usePageTitle(t("titles.signOut"));
  useEffect(() => {
    const signedOut = () => {
      forgetTrialFlow();
      if (ua) navigate(routeUrl("ULA_LOGOUT_SUCCESS", { [DESKTOP_APP_BRAND_PARAM]: clientBrand }), { replace: true });
      else setDone(true);
    };
    gateway()
      .call(api.logout, { body: { ua } })
      .then(signedOut, (error) => (isScreenFailure(error) ? fail(error) : signedOut()));
  }, [ua, clientBrand, fail]);
  return (
    <Layout>
      <h1>{t("titles.signOut")}</h1>
      {done ? (
        <>
          <p role="status">{t("logout.done")}</p>
          <Link to={ROUTES.LOGIN.path}>{t("logout.signInAgain")}</Link>
        </>
      ) : (
        <p role="status">{t("logout.inProgress")}</p>
      )}
    </Layout>
  );
}
