import { api, type NextStep, routeUrl, SecondFactorBody } from "@gatehouse/contract";
import { type ChangeEvent, useState } from "react";
import { useTranslation } from "react-i18next";
import { z } from "zod/mini";
import { ApiError, applyFieldErrors, gateway, isScreenFailure } from "../../api/index.ts";
import { useScreenFailure } from "../../app/failure.tsx";
import { Layout } from "../../app/Layout.tsx";
import { type AttemptFactors, useStepScreen } from "../../app/owed-step.ts";
import { Navigate, navigate, useSearchParams } from "../../app/routing.tsx";
import { usePageTitle } from "../../app/title.ts";
import { Alert } from "../../ui/Alert.tsx";
import { Button } from "../../ui/Button.tsx";
import { Checkbox } from "../../ui/Checkbox.tsx";
import { Field } from "../../ui/Field.tsx";
import { useFocusOnChange } from "../../ui/focus.ts";
import { useForm } from "../../ui/form/useForm.ts";
import { Spinner } from "../../ui/Spinner.tsx";
import { useT } from "../../ui/useT.ts";
import { useContinuation } from "../login/continue.ts";
import { PasskeyOption } from "./PasskeyOption.tsx";
import styles from "./SecondFactor.module.css";

type Method = "totp" | "recovery_code";
const Form = z.pick(SecondFactorBody, { code: true });

/** The kind of code asked first: the authenticator app's where the account has one, else a recovery code. */
function firstMethod(factors: AttemptFactors | undefined): Method {
  return factors === undefined || factors.totp ? "totp" : "recovery_code";
}

/**
 * Two-step verification (issue #26): the second factor a sign-in attempt owes after the password or a provider's
 * sign-in, by the authenticator app's code or a recovery code. No session exists until it is given; the answer's
 * `next` goes on with the sign-in. "Sign out" ends the attempt (the logout call cancels it).
 */
export default function SecondFactor() {
  const [params] = useSearchParams();
  const returnTo = params.get("return_to") ?? undefined;
  const { t } = useTranslation();
  const tk = useT();
  const fail = useScreenFailure();
  usePageTitle(t("titles.secondFactor"));
  const screen = useStepScreen("second_factor");
  const factors = screen.kind === "attempt" ? screen.factors : undefined;
  const [chosen, setChosen] = useState<Method>();
  const method = chosen ?? firstMethod(factors);
  const [remember, setRemember] = useState(false);
  const [notice, setNotice] = useState<string>();
  const [leaving, setLeaving] = useState(false);
  // A recovery code was taken: the screen says how many are left before the sign-in goes on.
  const [used, setUsed] = useState<{ left: number; next: NextStep }>();
  const { follow, redirecting } = useContinuation(returnTo ?? null);
  const heading = useFocusOnChange(method);
  const form = useForm(Form);
  const { errors, isSubmitting } = form.formState;

  const onSubmit = form.handleSubmit(async ({ code }) => {
    setNotice(undefined);
    try {
      const answer = await gateway().call(api.secondFactor, { body: { method, code, remember } });
      // A recovery code's use says how many are left (and is mailed, issue #26) before the sign-in goes on.
      if (answer.recoveryCodesLeft !== undefined) return setUsed({ left: answer.recoveryCodesLeft, next: answer.next });
      follow(answer.next);
    } catch (error) {
      if (isScreenFailure(error)) return fail(error);
      if (!(error instanceof ApiError)) return setNotice("network.unexpected");
      if (applyFieldErrors(error, (_field, message) => form.setError("code", { message }, { shouldFocus: true })))
        return;
      // A wrong code is the field's error, so the person fixes it where they type it.
      if (error.code === "second_factor_invalid")
        return form.setError("code", { message: `errors.${error.code}` }, { shouldFocus: true });
      setNotice(`errors.${error.code}`);
    }
  });

  const switchTo = (next: Method) => {
    setNotice(undefined);
    form.reset({ code: "" });
    setChosen(next);
  };

  const signOut = () => {
    setLeaving(true);
    const toLogin = () => navigate(routeUrl("LOGIN", { return_to: returnTo }), { replace: true });
    gateway()
      .call(api.logout, { body: {} })
      .then(toLogin, (error: unknown) => (isScreenFailure(error) ? fail(error) : toLogin()));
  };

  // A signed-in person owes nothing here: sign-in decides where they go.
  if (screen.kind === "session") return <Navigate to={routeUrl("LOGIN", { return_to: returnTo })} replace />;
  if (screen.kind === "checking") {
    return (
      <Layout>
        <Spinner label={t("app.loading")} />
      </Layout>
    );
  }
  if (used) {
    return (
      <Layout>
        <h1>{t("secondFactor.heading")}</h1>
        <Alert kind="success">{t("secondFactor.recoveryUsed", { count: used.left })}</Alert>
        <Button busy={redirecting} onClick={() => follow(used.next)} autoFocus>
          {t("secondFactor.continue")}
        </Button>
      </Layout>
    );
  }
  const byApp = method === "totp";
  // The other kind of code, where the account has it (recovery codes exist once a factor is on).
  const other: Method | undefined = byApp
    ? factors === undefined || factors.recoveryCodes
      ? "recovery_code"
      : undefined
    : factors === undefined || factors.totp
      ? "totp"
      : undefined;
  const busy = isSubmitting || redirecting;
  // A code to type: an authenticator app or recovery codes (an account with passkeys only has neither).
  const typed = factors === undefined || factors.totp || factors.recoveryCodes;
  return (
    <Layout>
      <h1 ref={heading} tabIndex={-1}>
        {t("secondFactor.heading")}
      </h1>
      {typed ? <p>{byApp ? t("secondFactor.intro") : t("secondFactor.recoveryIntro")}</p> : null}
      {notice ? <Alert kind="error">{tk(notice)}</Alert> : null}
      {factors?.passkeys ? (
        <PasskeyOption returnTo={returnTo ?? null} disabled={busy || leaving} onDone={follow} />
      ) : null}
      {typed ? (
        <form onSubmit={onSubmit} noValidate>
          <Field
            key={method}
            label={byApp ? t("secondFactor.code") : t("secondFactor.recoveryCode")}
            autoComplete={byApp ? "one-time-code" : "off"}
            inputMode={byApp ? "numeric" : "text"}
            autoCapitalize="off"
            spellCheck={false}
            error={errors.code?.message}
            {...form.register("code")}
          />
          <Checkbox
            label={t("secondFactor.remember")}
            checked={remember}
            onChange={(event: ChangeEvent<HTMLInputElement>) => setRemember(event.target.checked)}
          />
          <Button type="submit" busy={busy} disabled={leaving}>
            {t("secondFactor.verify")}
          </Button>
        </form>
      ) : null}
      <div className={styles.links}>
        {other ? (
          <Button variant="link" onClick={() => switchTo(other)} disabled={busy || leaving}>
            {other === "recovery_code" ? t("secondFactor.useRecovery") : t("secondFactor.useApp")}
          </Button>
        ) : null}
        <Button variant="link" onClick={signOut} busy={leaving} disabled={busy}>
          {t("secondFactor.signOut")}
        </Button>
      </div>
    </Layout>
  );
}
