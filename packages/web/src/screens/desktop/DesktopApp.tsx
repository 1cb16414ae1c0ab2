import { ROUTES, type RouteId } from "@gatehouse/contract";
import { useTranslation } from "react-i18next";
import { Layout } from "../../app/Layout.tsx";
import { routeIdFor } from "../../app/router.tsx";
import { Link, useLocation, useSearchParams } from "../../app/routing.tsx";
import { usePageTitle } from "../../app/title.ts";
import styles from "./DesktopApp.module.css";
import { type DesktopAppWording, useDesktopAppWording } from "./wording.ts";

/**
 * The desktop-app pages of spec §2, one module for the three (one chunk: the router's table stays small): a desktop
 * app signed in or out through the system browser, or its sign-in failed; each tells the person to close the window.
 */
export default function DesktopApp() {
  const { pathname } = useLocation();
  const wording = useDesktopAppWording();
  const page: RouteId | undefined = routeIdFor(pathname);
  if (page === "ULA_LOGIN_ERROR") return <SignInFailed wording={wording} />;
  return <Done wording={wording} signedOut={page === "ULA_LOGOUT_SUCCESS"} />;
}

/**
 * /ula-login-success and /ula-logout-success (end-session, /logout?ua=): done, back to the app. No dead end for
 * whoever stays (issue #8): the brand's site after signing in, signing in again after signing out.
 */
function Done({ wording: { kind, app, brand }, signedOut }: { wording: DesktopAppWording; signedOut: boolean }) {
  const { t } = useTranslation();
  const heading = t(`desktopApp.${kind}.${signedOut ? "signedOut" : "signedIn"}`, { app });
  usePageTitle(heading);
  return (
    <Layout>
      <h1>{heading}</h1>
      <p>{t(`desktopApp.${kind}.returnToApp`, { app })}</p>
      <p className={styles.links}>
        {signedOut ? (
          <Link to={ROUTES.LOGIN.path}>{t("logout.signInAgain")}</Link>
        ) : (
          <a href={brand.links.home}>{t("loginSuccess.home", { brand: brand.name })}</a>
        )}
      </p>
    </Layout>
  );
}

/**
 * /ula-login-error?error_description=: the provider's description, as text (React escapes it, so markup in the
 * query stays characters), or a default; then, as the other desktop pages, closing the window, and Sign in. The
 * brand's Help Center is the footer's, once (issue #25).
 */
function SignInFailed({ wording: { kind, app } }: { wording: DesktopAppWording }) {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const description = params.get("error_description")?.trim();
  usePageTitle(t("titles.signInFailed"));
  return (
    <Layout>
      <h1>{t("titles.signInFailed")}</h1>
      <p>{description || t(`desktopApp.${kind}.defaultError`, { app })}</p>
      <p>{t(`desktopApp.${kind}.closeAfterError`, { app })}</p>
      <p className={styles.links}>
        <Link to={ROUTES.LOGIN.path}>{t("titles.signIn")}</Link>
      </p>
    </Layout>
  );
}
