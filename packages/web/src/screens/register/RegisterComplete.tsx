import { api, routeUrl } from "@gatehouse/contract";
import { useTranslation } from "react-i18next";
import { Layout } from "../../app/Layout.tsx";
import { Link, Navigate, useLocation, useSearchParams } from "../../app/routing.tsx";
import { usePageTitle } from "../../app/title.ts";
import { Button } from "../../ui/Button.tsx";
import { ResendOutcome, useActivationResend } from "../activate/resend.tsx";
import styles from "./Register.module.css";
import { REGISTERED_EMAIL_KEY } from "./registered.ts";

/** Spec §2 "Registration complete" and §4: the address the mail went to, and a resend with its four states. */
export default function RegisterComplete() {
  const location = useLocation();
  const [params] = useSearchParams();
  const { t } = useTranslation();
  usePageTitle(t("titles.signUpComplete"));
  const email =
    (location.state as { email?: string } | null)?.email ?? sessionStorage.getItem(REGISTERED_EMAIL_KEY) ?? undefined;
  const returnTo = params.get("return_to") ?? undefined;
  const { resend, send } = useActivationResend(api.resendActivation, email, returnTo);

  // Spec §4: without a successful registration this page sends the visitor to sign-in.
  if (!email) return <Navigate to="/" replace />;

  return (
    <Layout>
      <h1>{t("registerComplete.heading")}</h1>
      <p>{t("registerComplete.body", { email })}</p>
      <p>{t("registerComplete.spam")}</p>
      <ResendOutcome resend={resend} email={email} />
      <p>{t("registerComplete.notReceived")}</p>
      <Button variant="secondary" onClick={() => void send()} disabled={resend.state === "loading"}>
        {resend.state === "loading" ? t("registerComplete.sending") : t("registerComplete.resend")}
      </Button>
      {/* Not a dead end (issue #25): back to sign-in, for after the activation or for another account. */}
      <p className={styles.back}>
        <Link to={routeUrl("LOGIN", { return_to: returnTo })}>{t("registerComplete.backToSignIn")}</Link>
      </p>
    </Layout>
  );
}
