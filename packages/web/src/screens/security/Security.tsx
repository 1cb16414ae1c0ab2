import { routeUrl } from "@gatehouse/contract";
import { useRef } from "react";
import { useTranslation } from "react-i18next";
import { Layout } from "../../app/Layout.tsx";
import { Link } from "../../app/routing.tsx";
import { usePageTitle } from "../../app/title.ts";
import { Activity } from "./Activity.tsx";
import { Apps } from "./Apps.tsx";
import styles from "./Security.module.css";
import { Sessions } from "./Sessions.tsx";

/**
 * /account/security (issue #27, login required): where the person is signed in, the sites and apps that hold their
 * account, and what happened, each list with a way to end it. Ending a sign-in or an app's access is recorded, so
 * the activity list loads again after either; ending sign-ins can end apps' access, so the apps list does too.
 */
export default function Security() {
  const { t } = useTranslation();
  usePageTitle(t("securityPage.heading"));
  const apps = useRef<{ reload: () => void }>(null);
  const activity = useRef<{ reload: () => void }>(null);
  // Ending sign-ins can end apps' access too ("Sign out everywhere else" ends the offline ones): both lists reload.
  const signInsEnded = () => {
    apps.current?.reload();
    activity.current?.reload();
  };
  return (
    <Layout>
      <h1>{t("securityPage.heading")}</h1>
      <p>{t("securityPage.intro")}</p>
      <Sessions onEnded={signInsEnded} />
      <Apps ref={apps} onRemoved={() => activity.current?.reload()} />
      <Activity ref={activity} />
      <p className={styles.back}>
        <Link to={routeUrl("ACCOUNT_EDIT")}>{t("securityPage.back")}</Link>
      </p>
    </Layout>
  );
}
