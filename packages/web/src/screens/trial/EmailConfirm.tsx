import { api, trialMode } from "@gatehouse/contract";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { ApiError, errorKey, gateway, isScreenFailure } from "../../api/index.ts";
import { useApp } from "../../app/context.tsx";
import { useScreenFailure } from "../../app/failure.tsx";
import { useNavigate } from "../../app/routing.tsx";
import { useSession } from "../../app/session.ts";
import { usePageTitle } from "../../app/title.ts";
import { Alert } from "../../ui/Alert.tsx";
import { Button } from "../../ui/Button.tsx";
import { Spinner } from "../../ui/Spinner.tsx";
import { useT } from "../../ui/useT.ts";
import { trialDestination } from "./destination.ts";
import { forgetTrialFlow, useTrialQuery } from "./flow.ts";
import { TrialLayout } from "./ProductStrip.tsx";
import styles from "./Trial.module.css";

/**
 * Trial step 2 (spec §2 "Trial flow" 2): a signed-in visitor sees whose account the trial goes to and starts it;
 * someone else signs out and starts again with their own address.
 */
export default function EmailConfirm() {
  const { brand, returnPolicy } = useApp();
  const { t } = useTranslation();
  const tk = useT();
  const navigate = useNavigate();
  const fail = useScreenFailure();
  const session = useSession();
  const { url, returnTo, productCode } = useTrialQuery();
  const [notice, setNotice] = useState<string>();
  const [busy, setBusy] = useState(false);
  usePageTitle(t("titles.confirmEmail"));
  const person = session.status === "ready" ? session.session : undefined;

  // An anonymous visitor gives an address first.
  useEffect(() => {
    if (person === null) navigate(url("TRIAL_EMAIL_CHECK"), { replace: true });
  }, [person, navigate, url]);

  const start = async () => {
    setNotice(undefined);
    setBusy(true);
    try {
      const trial = await gateway().call(api.trialStart, { body: { productCode, ...trialMode(brand) } });
      const destination = trialDestination(returnTo, returnPolicy, brand, {
        isNewAccount: false,
        productCode: trial.productCode,
      });
      forgetTrialFlow();
      return window.location.assign(destination);
    } catch (error) {
      setBusy(false);
      if (isScreenFailure(error)) return fail(error);
      // Signed out meanwhile (another tab): the address first, as for any visitor.
      if (error instanceof ApiError && error.status === 401) return navigate(url("TRIAL_EMAIL_CHECK"));
      setNotice(errorKey(error));
    }
  };

  // "Use another account": sign out (as /logout does), then the address of the other account.
  const signOut = async () => {
    setBusy(true);
    try {
      await gateway().call(api.logout, { body: {} });
      forgetTrialFlow();
    } catch (error) {
      setBusy(false);
      if (isScreenFailure(error)) return fail(error);
    }
    navigate(url("TRIAL_EMAIL_CHECK"));
  };

  if (!person) {
    return (
      <TrialLayout>
        <Spinner label={t("app.loading")} />
      </TrialLayout>
    );
  }
  const name = [person.FirstName, person.LastName].filter(Boolean).join(" ");
  return (
    <TrialLayout>
      <h1>{t("trial.confirm.heading")}</h1>
      <p className={styles.intro}>{t("trial.confirm.intro")}</p>
      <div className={styles.identity}>
        {name ? <p className={styles.name}>{name}</p> : null}
        <p className={styles.email}>{person.Email}</p>
      </div>
      {notice ? <Alert kind="error">{tk(notice)}</Alert> : null}
      <div className={styles.actions}>
        <Button onClick={() => void start()} disabled={busy}>
          {t("trial.confirm.start")}
        </Button>
        <p>
          {t("trial.confirm.notYou")}{" "}
          <Button variant="link" onClick={() => void signOut()} disabled={busy}>
            {t("trial.confirm.otherAccount")}
          </Button>
        </p>
      </div>
    </TrialLayout>
  );
}
