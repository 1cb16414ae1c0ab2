import { api, isCodeErrorKey, ResetPasswordBody, routeUrl } from "@gatehouse/contract";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { z } from "zod/mini";
import { type ApiError, applyFieldErrors, errorKey, gateway, isScreenFailure } from "../../api/index.ts";
import { useApp } from "../../app/context.tsx";
import { useScreenFailure } from "../../app/failure.tsx";
import { Layout } from "../../app/Layout.tsx";
import { useMailedCode } from "../../app/mailed-code.ts";
import { Link, useSearchParams } from "../../app/routing.tsx";
import { usePageTitle } from "../../app/title.ts";
import { Alert } from "../../ui/Alert.tsx";
import { Button, buttonClass } from "../../ui/Button.tsx";
import { useFocusOnChange } from "../../ui/focus.ts";
import { useForm } from "../../ui/form/useForm.ts";
import { PasswordField } from "../../ui/PasswordField.tsx";
import { useT } from "../../ui/useT.ts";
import { CodeProblem, CodeValidating, useCodeCheck } from "./code-check.tsx";

const Form = z.pick(ResetPasswordBody, { password: true });

/** Reset password (spec §2): LOADING... while the code is checked, then the new password and Update. */
export default function Reset() {
  const [params] = useSearchParams();
  const returnTo = params.get("return_to") ?? undefined;
  const code = useMailedCode();
  const { brand } = useApp();
  const { t } = useTranslation();
  const tk = useT();
  const fail = useScreenFailure();
  usePageTitle(t("titles.resetPassword"));
  const check = useCodeCheck(code);
  const [done, setDone] = useState(false);
  const heading = useFocusOnChange(done);
  const [failure, setFailure] = useState<{ key: string; guid?: string }>();
  const form = useForm(Form);
  const { errors, isSubmitting } = form.formState;
  const password = form.watch("password") ?? "";

  const onSubmit = form.handleSubmit(async (values) => {
    setFailure(undefined);
    try {
      await gateway().call(api.resetPassword, { body: { password: values.password, code: code ?? "" } });
      setDone(true);
    } catch (error) {
      if (isScreenFailure(error)) return fail(error);
      // The only field the server can fault here is the password.
      if (applyFieldErrors(error, (_field, message) => form.setError("password", { message }))) return;
      setFailure({
        key: errorKey(error),
        guid: (error as ApiError).answer?.guid,
      });
    }
  });

  if (check.state === "validating") {
    return <CodeValidating />;
  }
  // A code refused at submit (used in another tab, replaced by a newer link) gets the same screen as at load.
  if (failure && isCodeErrorKey(failure.key))
    return <CodeProblem reason={failure.key} guid={failure.guid} returnTo={returnTo} takeFocus />;
  if (check.state === "invalid") return <CodeProblem reason={check.reason} guid={check.guid} returnTo={returnTo} />;
  if (done) {
    return (
      <Layout>
        <h1 ref={heading} tabIndex={-1}>
          {t("reset.heading")}
        </h1>
        <Alert kind="success">{t("reset.success")}</Alert>
        <Link className={buttonClass} to={routeUrl("LOGIN", { return_to: returnTo })}>
          {t("reset.signIn")}
        </Link>
      </Layout>
    );
  }
  return (
    <Layout>
      <h1 ref={heading} tabIndex={-1}>
        {t("reset.heading")}
      </h1>
      {failure ? <Alert kind="error">{tk(failure.key)}</Alert> : null}
      <form onSubmit={onSubmit} noValidate>
        <PasswordField
          label={t("reset.newPassword")}
          autoComplete="new-password"
          showRules
          value={password}
          error={errors.password?.message}
          {...form.register("password")}
        />
        <Button type="submit" disabled={isSubmitting}>
          {brand.traits.resetButtonRecover ? t("reset.recover") : t("reset.update")}
        </Button>
      </form>
    </Layout>
  );
}
