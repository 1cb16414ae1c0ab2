import { api, ChangePasswordBody, type NextStep, REDIRECT_DELAY_MS, routeUrl, safeReturnTo } from "@gatehouse/contract";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { ApiError, applyFieldErrors, gateway, isScreenFailure } from "../../api/index.ts";
import { useApp } from "../../app/context.tsx";
import { useScreenFailure } from "../../app/failure.tsx";
import { Layout } from "../../app/Layout.tsx";
import { useStepScreen } from "../../app/owed-step.ts";
import { useNavigate, useSearchParams } from "../../app/routing.tsx";
import { usePageTitle } from "../../app/title.ts";
import { Alert } from "../../ui/Alert.tsx";
import { Button } from "../../ui/Button.tsx";
import { useFocusOnChange } from "../../ui/focus.ts";
import { useForm } from "../../ui/form/useForm.ts";
import { PasswordField } from "../../ui/PasswordField.tsx";
import { Spinner } from "../../ui/Spinner.tsx";
import { useT } from "../../ui/useT.ts";
import { useContinuation } from "../login/continue.ts";

type FormInput = { oldPassword: string; password: string };

/**
 * Change password (spec §2): login required; with required_password_update the merge banner and no back link. Opened
 * so, it is also the password step a sign-in attempt owes (issue #24): no session yet, and once changed the person
 * goes where the server's `next` says (the sign-in finished, or the profile step).
 */
export default function Change() {
  const [params] = useSearchParams();
  const returnTo = params.get("return_to") ?? undefined;
  const required = params.has("required_password_update");
  const { returnPolicy } = useApp();
  const { t } = useTranslation();
  const tk = useT();
  const navigate = useNavigate();
  const fail = useScreenFailure();
  usePageTitle(t("titles.changePassword"));
  const [done, setDone] = useState(false);
  const screen = useStepScreen("password_change");
  const [next, setNext] = useState<NextStep>();
  const { follow } = useContinuation(returnTo ?? null);
  const heading = useFocusOnChange(done);
  const [notice, setNotice] = useState<string>();
  const form = useForm(ChangePasswordBody);
  const { errors, isSubmitting } = form.formState;
  const password = form.watch("password") ?? "";

  // Spec §2, §4: "Redirecting you to login page..." after 2 s — signed out, so the login page is what shows and
  // the new password is what signs in again; return_to comes along for after that.
  // biome-ignore lint/correctness/useExhaustiveDependencies: one timer for the answer; follow is the screen's own.
  useEffect(() => {
    if (!done) return;
    const timer = setTimeout(() => {
      // A sign-in attempt's step: the sign-in goes on where the server said.
      if (next) return follow(next);
      const toLogin = () => navigate(routeUrl("LOGIN", { return_to: returnTo }), { replace: true });
      gateway()
        .call(api.logout, { body: {} })
        .then(toLogin, (error: unknown) => (isScreenFailure(error) ? fail(error) : toLogin()));
    }, REDIRECT_DELAY_MS.changePassword);
    return () => clearTimeout(timer);
  }, [done, next, navigate, returnTo, fail]);

  const onSubmit = form.handleSubmit(async (values) => {
    setNotice(undefined);
    try {
      const answer = await gateway().call(api.changePassword, { body: values });
      setNext(answer.next);
      setDone(true);
    } catch (error) {
      if (isScreenFailure(error)) return fail(error);
      if (!(error instanceof ApiError)) return setNotice("network.unexpected");
      if (
        applyFieldErrors(error, (field, message) =>
          form.setError(field as keyof FormInput, { message }, { shouldFocus: true }),
        )
      )
        return;
      setNotice(`errors.${error.code}`);
    }
  });

  if (screen.kind === "checking") {
    return (
      <Layout>
        <Spinner label={t("app.loading")} />
      </Layout>
    );
  }
  return (
    <Layout>
      <h1 ref={heading} tabIndex={-1}>
        {t("change.heading")}
      </h1>
      {required ? <Alert kind="info">{t("change.mergeInfo")}</Alert> : null}
      {done ? <Alert kind="success">{t("change.success")}</Alert> : null}
      {notice ? <Alert kind="error">{tk(notice)}</Alert> : null}
      {done ? null : (
        <form onSubmit={onSubmit} noValidate>
          <PasswordField
            label={t("change.oldPassword")}
            autoComplete="current-password"
            error={errors.oldPassword?.message}
            {...form.register("oldPassword")}
          />
          <PasswordField
            label={t("change.newPassword")}
            autoComplete="new-password"
            showRules
            value={password}
            error={errors.password?.message}
            {...form.register("password")}
          />
          {/* Issue #27: what a change ends, in the words of docs/decisions.md, before the person commits to it. */}
          <p>{t("change.ends")}</p>
          <Button type="submit" disabled={isSubmitting}>
            {t("change.submit")}
          </Button>
        </form>
      )}
      {required || done ? null : (
        <p>
          <a href={safeReturnTo(returnTo, returnPolicy, routeUrl("ACCOUNT_EDIT"))}>{t("change.back")}</a>
        </p>
      )}
    </Layout>
  );
}
