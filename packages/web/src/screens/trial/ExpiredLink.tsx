import { useTranslation } from "react-i18next";
import { Link } from "../../app/routing.tsx";
import { usePageTitle } from "../../app/title.ts";
import { buttonClass } from "../../ui/Button.tsx";
import { useTrialQuery } from "./flow.ts";
import { TrialLayout } from "./ProductStrip.tsx";

/** Trial step 6 (spec §2 "Trial flow" 6, §8): the activation link ran out; the trial starts again from the address. */
export default function ExpiredLink() {
  const { t } = useTranslation();
  const { url } = useTrialQuery();
  usePageTitle(t("titles.trialLinkExpired"));
  return (
    <TrialLayout>
      <h1>{t("trial.expired.heading")}</h1>
      <p>{t("trial.expired.body")}</p>
      <Link className={buttonClass} to={url("TRIAL_EMAIL_CHECK")}>
        {t("trial.expired.restart")}
      </Link>
    </TrialLayout>
  );
}
