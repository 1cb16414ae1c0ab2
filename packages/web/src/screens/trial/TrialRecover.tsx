import { useTranslation } from "react-i18next";
import { usePageTitle } from "../../app/title.ts";
import { RecoverForm } from "../password/RecoverForm.tsx";
import { trialEmail, useTrialQuery } from "./flow.ts";
import { TrialLayout } from "./ProductStrip.tsx";

/**
 * Trial step 7 (spec §2 "Trial flow" 7): the recovery form, prefilled with the trial's address when known, then
 * Back to login — the trial's sign-in, or its email check when no address is known in this tab.
 */
export default function TrialRecover() {
  const { t } = useTranslation();
  const { url, returnTo } = useTrialQuery();
  usePageTitle(t("titles.recoverPassword"));
  const email = trialEmail();
  return (
    <TrialLayout>
      <RecoverForm
        returnTo={returnTo ?? undefined}
        defaultEmail={email}
        back={{ to: url(email ? "TRIAL_LOGIN" : "TRIAL_EMAIL_CHECK"), label: t("trial.recover.backToLogin") }}
      />
    </TrialLayout>
  );
}
