import { api, trialMode } from "@gatehouse/contract";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { useApp } from "../../app/context.tsx";
import { Link, Navigate } from "../../app/routing.tsx";
import { usePageTitle } from "../../app/title.ts";
import { useContinuation } from "../login/continue.ts";
import { usePasswordSignIn } from "../login/PasswordSignIn.tsx";
import { forgetTrialFlow, trialEmail, useTrialQuery } from "./flow.ts";
import { TrialLayout } from "./ProductStrip.tsx";
import styles from "./Trial.module.css";

/**
 * Trial step 3 (spec §2 "Trial flow" 3, §4 "In trial mode…"): the address the email check found an account for,
 * locked, and its password; the sign-in starts the trial, and the person goes to an owed step first, then to the
 * trial's destination (not a new account).
 */
export default function TrialLogin() {
  const { brand } = useApp();
  const { t } = useTranslation();
  const { url, returnTo, productCode } = useTrialQuery();
  const { redirecting, follow } = useContinuation(returnTo);
  usePageTitle(t("titles.trialSignIn"));
  // Read once: the address is forgotten at sign-in, while this screen still shows.
  const [email] = useState(trialEmail);

  const signIn = usePasswordSignIn({
    returnTo,
    defaultEmail: email ?? "",
    emailLocked: true,
    emailLabel: t("register.workEmail"),
    extraBody: { productCode, ...trialMode(brand) },
    resendEndpoint: api.trialResendActivation,
    recoverUrl: url("TRIAL_PASSWORD_RECOVER"),
    redirecting,
    onSignedIn: (answer) => {
      forgetTrialFlow();
      // The server decided: an owed step, the product site's return address, or the trial's address (spec §4).
      follow(answer.next);
    },
  });

  if (!email) return <Navigate to={url("TRIAL_EMAIL_CHECK")} replace />;
  return (
    <TrialLayout>
      <h1>{t("login.heading.trial")}</h1>
      <p className={styles.intro}>{t("trial.login.intro")}</p>
      {signIn.view}
      <p className={styles.footer}>
        <Link to={url("TRIAL_EMAIL_CHECK")}>{t("trial.changeEmail")}</Link>
      </p>
    </TrialLayout>
  );
}
