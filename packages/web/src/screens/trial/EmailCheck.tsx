import { api, RegisterBody } from "@gatehouse/contract";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { z } from "zod/mini";
import { errorKey, gateway, isScreenFailure } from "../../api/index.ts";
import { useScreenFailure } from "../../app/failure.tsx";
import { useNavigate } from "../../app/routing.tsx";
import { useSession } from "../../app/session.ts";
import { usePageTitle } from "../../app/title.ts";
import { Alert } from "../../ui/Alert.tsx";
import { Button } from "../../ui/Button.tsx";
import { Field } from "../../ui/Field.tsx";
import { useForm } from "../../ui/form/useForm.ts";
import { Spinner } from "../../ui/Spinner.tsx";
import { useT } from "../../ui/useT.ts";
import { CorporateHint } from "../login/corporate.tsx";
import { rememberTrialEmail, trialEmail, useTrialQuery } from "./flow.ts";
import { TrialLayout } from "./ProductStrip.tsx";
import styles from "./Trial.module.css";

const Form = z.pick(RegisterBody, { email: true });

/**
 * Trial step 1 (spec §2 "Trial flow", §4 "Trial email check"): the address decides the way on — an account's
 * address to the trial's sign-in, a new one to the trial's registration; the server's "invalid" on the field.
 */
export default function EmailCheck() {
  const { t } = useTranslation();
  const tk = useT();
  const navigate = useNavigate();
  const fail = useScreenFailure();
  const session = useSession();
  const { url, returnTo } = useTrialQuery();
  const [notice, setNotice] = useState<string>();
  // The address the corporate hint was shown for: Continue again with it goes on as a password account.
  const [corporateFor, setCorporateFor] = useState<string>();
  const [leaving, setLeaving] = useState(false);
  usePageTitle(t("titles.startTrial"));
  const form = useForm(Form, { defaultValues: { email: trialEmail() ?? "" } });
  const { errors, isSubmitting } = form.formState;
  const signedIn = session.status === "ready" && session.session !== null;

  // A signed-in visitor confirms the account they are signed in with instead.
  useEffect(() => {
    if (signedIn) navigate(url("TRIAL_EMAIL_CONFIRM"), { replace: true });
  }, [signedIn, navigate, url]);

  const onSubmit = form.handleSubmit(async ({ email }) => {
    setNotice(undefined);
    let answer: Awaited<ReturnType<typeof check>>;
    try {
      answer = await check(email);
    } catch (error) {
      if (isScreenFailure(error)) return fail(error);
      return setNotice(errorKey(error));
    }
    if (answer.status === "invalid") {
      form.setError("email", { message: answer.message ?? "validation.email.invalid" }, { shouldFocus: true });
      return;
    }
    rememberTrialEmail(email);
    // Spec §5: a single-sign-on domain's address gets the hint first, so the person can take it.
    if (answer.corporate && corporateFor !== email) return setCorporateFor(email);
    setLeaving(true);
    navigate(url(answer.status === "conflict" ? "TRIAL_LOGIN" : "TRIAL_REGISTER"));
  });

  if (signedIn) {
    return (
      <TrialLayout>
        <Spinner label={t("app.loading")} />
      </TrialLayout>
    );
  }
  return (
    <TrialLayout>
      <h1>{t("trial.emailCheck.heading")}</h1>
      <p className={styles.intro}>{t("trial.emailCheck.intro")}</p>
      {notice ? <Alert kind="error">{tk(notice)}</Alert> : null}
      <form onSubmit={onSubmit} noValidate>
        <Field
          label={t("register.workEmail")}
          type="email"
          inputMode="email"
          autoComplete="email"
          autoCapitalize="off"
          spellCheck={false}
          error={errors.email?.message}
          {...form.register("email", { onChange: () => setCorporateFor(undefined) })}
        />
        {corporateFor ? <CorporateHint returnTo={returnTo} email={() => form.getValues("email")} /> : null}
        <Button type="submit" disabled={isSubmitting || leaving}>
          {t("trial.emailCheck.continue")}
        </Button>
      </form>
    </TrialLayout>
  );
}

const check = (email: string) => gateway().call(api.registerValidate, { body: { email } });
