import { ROUTES, routeUrl } from "@gatehouse/contract";
import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import { useApp } from "../../app/context.tsx";
import { Layout } from "../../app/Layout.tsx";
import { Link, Navigate } from "../../app/routing.tsx";
import { useSession } from "../../app/session.ts";
import { usePageTitle } from "../../app/title.ts";
import { buttonClass } from "../../ui/Button.tsx";
import styles from "./LoginSuccess.module.css";

/**
 * Spec §2: the visualisation brand's success page, "Authentication complete" and the signed-in user. It is where
 * sign-in lands without a return address, so it offers the next steps too: the brand's site, the account, sign out.
 */
export default function LoginSuccess() {
  const sessionState = useSession();
  const session = sessionState.status === "ready" ? sessionState.session : null;
  const { brand } = useApp();
  const { t } = useTranslation();
  usePageTitle(t("titles.authenticationComplete"));
  const elsewhere = !brand.traits.authenticationCompletePage;
  useEffect(() => {
    if (session && elsewhere) window.location.replace(brand.links.home);
  }, [session, elsewhere, brand.links.home]);
  // The account shows once the session answer names it; a visitor is sent to sign-in.
  if (sessionState.status !== "ready") return null;
  if (!session) return <Navigate to={ROUTES.LOGIN.path} replace />;
  if (elsewhere) return null;
  return (
    <Layout>
      <h1>{t("loginSuccess.heading")}</h1>
      <p>
        {t("loginSuccess.signedInAs", {
          name: `${session.FirstName} ${session.LastName}`.trim() || session.Email,
          email: session.Email,
        })}
      </p>
      <p>{t("app.closeWindow")}</p>
      <nav className={styles.next} aria-label={t("loginSuccess.nextSteps")}>
        <a className={buttonClass} href={brand.links.home}>
          {t("loginSuccess.home", { brand: brand.name })}
        </a>
        <div className={styles.links}>
          <Link to={routeUrl("ACCOUNT_EDIT")}>{t("loginSuccess.editAccount")}</Link>
          <Link to={routeUrl("LOGOUT")}>{t("loginSuccess.signOut")}</Link>
        </div>
      </nav>
    </Layout>
  );
}
