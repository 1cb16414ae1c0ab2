import { api, ROUTES } from "@gatehouse/contract";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { gateway, isScreenFailure } from "../../api/index.ts";
import { useScreenFailure } from "../../app/failure.tsx";
import { Layout } from "../../app/Layout.tsx";
import { Link, useSearchParams } from "../../app/routing.tsx";
import { usePageTitle } from "../../app/title.ts";

/** /logout?ua= (spec §2, §7): ends the server session, then confirms. */
export default function Logout() {
  const [params] = useSearchParams();
  const ua = params.get("ua") ?? undefined;
  const { t } = useTranslation();
  const fail = useScreenFailure();
  const [done, setDone] = useState(false);
  usePageTitle(t("titles.signOut"));
  useEffect(() => {
    gateway()
      .call(api.logout, { body: { ua } })
      .then(
        () => setDone(true),
        (error) => (isScreenFailure(error) ? fail(error) : setDone(true)),
      );
  }, [ua, fail]);
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
