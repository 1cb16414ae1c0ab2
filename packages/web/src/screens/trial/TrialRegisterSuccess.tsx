import { api } from "@gatehouse/contract";
import { useTranslation } from "react-i18next";
import { Navigate } from "../../app/routing.tsx";
import { usePageTitle } from "../../app/title.ts";
import { Button } from "../../ui/Button.tsx";
import { ResendOutcome, useActivationResend } from "../activate/resend.tsx";
import { trialRegistered, useTrialQuery } from "./flow.ts";
import { TrialLayout } from "./ProductStrip.tsx";

/**
 * Trial step 5 (spec §2 "Trial flow" 5, §9): the address the activation link went to, how long it is valid, and a
 * resend through the trial's own call (the same answer whatever the address).
 */
export default function TrialRegisterSuccess() {
  const { t } = useTranslation();
  const { url, returnTo } = useTrialQuery();
  usePageTitle(t("titles.signUpComplete"));
  const email = trialRegistered();
  const { resend, send } = useActivationResend(api.trialResendActivation, email, returnTo ?? undefined);

  if (!email) return <Navigate to={url("TRIAL_EMAIL_CHECK")} replace />;
  return (
    <TrialLayout>
      <h1>{t("trial.success.heading")}</h1>
      <p>{t("trial.success.body", { email })}</p>
      <p>{t("trial.success.validity")}</p>
      <p>{t("trial.success.spam")}</p>
      <ResendOutcome resend={resend} email={email} />
      <p>
        {t("trial.success.notReceived")}{" "}
        <Button variant="link" onClick={() => void send()} disabled={resend.state === "loading"}>
          {resend.state === "loading" ? t("trial.success.sending") : t("trial.success.resend")}
        </Button>
      </p>
    </TrialLayout>
  );
}
