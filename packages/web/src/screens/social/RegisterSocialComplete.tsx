import { REDIRECT_DELAY_MS, routeUrl } from "@gatehouse/contract";
import { useEffect, useRef } from "react";
import { useTranslation } from "react-i18next";
import { useApp } from "../../app/context.tsx";
import { Layout } from "../../app/Layout.tsx";
import { Navigate, useLocation, useNavigate } from "../../app/routing.tsx";
import { usePageTitle } from "../../app/title.ts";
import { Button } from "../../ui/Button.tsx";
import { useContinuation } from "../login/continue.ts";
import { forgetRegistered, recallRegistered } from "./registered.ts";
import styles from "./Social.module.css";

/**
 * Social registration complete (spec §2, §4): "Account created" with the name and address, and OK to go on. A
 * signed-in account goes on by itself after REDIRECT_DELAY_MS.registerSocial, as a sign-in does (return address,
 * legacy flow or landing page). An account whose address the provider did not vouch for (Facebook) is not signed
 * in: the screen says to activate it from the mail, stays until OK, and OK leads to sign-in.
 */
export default function RegisterSocialComplete() {
  const location = useLocation();
  const { brand } = useApp();
  const { t } = useTranslation();
  const navigate = useNavigate();
  usePageTitle(t("titles.signUpComplete"));
  const done = recallRegistered(location.state);
  const continuation = useContinuation(done?.returnTo ?? null);
  const gone = useRef(false);

  const proceed = () => {
    if (!done || gone.current) return;
    gone.current = true;
    forgetRegistered();
    if (done.activation || !done.next) navigate(routeUrl("LOGIN", { return_to: done.returnTo }), { replace: true });
    else continuation.follow(done.next);
  };

  const automatic = done !== undefined && !done.activation;
  // biome-ignore lint/correctness/useExhaustiveDependencies: one timer for the screen; proceed reads the same answer.
  useEffect(() => {
    if (!automatic) return;
    const timer = setTimeout(proceed, REDIRECT_DELAY_MS.registerSocial);
    return () => clearTimeout(timer);
  }, [automatic]);

  // Like register/complete: without a registration this page sends the visitor to sign-in.
  if (!done) return <Navigate to="/" replace />;

  return (
    <Layout>
      <h1>{t("socialRegisterComplete.heading")}</h1>
      <div className={styles.identity}>
        <div>
          <p className={styles.name}>{done.fullName}</p>
          <p className={styles.email}>{done.email}</p>
        </div>
      </div>
      {done.activation ? (
        <>
          <p>{t("socialRegisterComplete.activationBody", { email: done.email })}</p>
          <p>{t("registerComplete.spam")}</p>
        </>
      ) : (
        <>
          <p>{t("socialRegisterComplete.body", { brand: brand.name, email: done.email })}</p>
          <p role="status">{t("socialRegisterComplete.redirecting")}</p>
        </>
      )}
      <Button onClick={proceed} disabled={continuation.redirecting}>
        {t("socialRegisterComplete.ok")}
      </Button>
    </Layout>
  );
}
