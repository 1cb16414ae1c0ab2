import {
  api,
  isCodeErrorKey,
  MARKETING_SOURCES,
  MarketingInfo,
  type NextStep,
  OPTION_PROPER_NAMES,
  PLATFORMS,
  REDIRECT_DELAY_MS,
  ROLES,
  SetupPasswordBody,
} from "@gatehouse/contract";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { z } from "zod/mini";
import { type ApiError, applyFieldErrors, errorKey, gateway, isScreenFailure } from "../../api/index.ts";
import { useScreenFailure } from "../../app/failure.tsx";
import { Layout } from "../../app/Layout.tsx";
import { useMailedCode } from "../../app/mailed-code.ts";
import { usePageTitle } from "../../app/title.ts";
import { Alert } from "../../ui/Alert.tsx";
import { Button } from "../../ui/Button.tsx";
import { Field } from "../../ui/Field.tsx";
import { useFocusOnChange } from "../../ui/focus.ts";
import { useForm } from "../../ui/form/useForm.ts";
import { PasswordField } from "../../ui/PasswordField.tsx";
import { Select } from "../../ui/Select.tsx";
import { useT } from "../../ui/useT.ts";
import { useContinuation } from "../login/continue.ts";
import { CodeProblem, CodeValidating, useCodeCheck } from "./code-check.tsx";

/** An account adding a password (issue #25) chooses it alone; an invitation answers the survey too (spec §2). */
const PasswordOnly = z.pick(SetupPasswordBody, { password: true, marketingInfo: true });
const WithSurvey = z.extend(z.pick(SetupPasswordBody, { password: true }), { marketingInfo: MarketingInfo });

const SELECTS = [
  { name: "marketingSource", options: MARKETING_SOURCES },
  { name: "platformOfInterest", options: PLATFORMS },
  { name: "role", options: ROLES },
] as const;

/**
 * Set up password for invited users (spec §2): the code is checked, then the password and the survey. An account
 * without a password that asked for the link from Edit account (issue #25) chooses the password alone.
 */
export default function Setup() {
  const code = useMailedCode();
  const { t } = useTranslation();
  usePageTitle(t("titles.setupPassword"));
  const check = useCodeCheck(code);
  if (check.state === "validating") return <CodeValidating />;
  if (check.state === "invalid") return <CodeProblem reason={check.reason} guid={check.guid} />;
  return <SetupForm code={code ?? ""} survey={check.survey} />;
}

function SetupForm({ code, survey }: { code: string; survey: boolean }) {
  const { t } = useTranslation();
  const tk = useT();
  const fail = useScreenFailure();
  const [done, setDone] = useState<NextStep>();
  const { follow } = useContinuation(null);
  const heading = useFocusOnChange(done);
  const [failure, setFailure] = useState<{ key: string; guid?: string | undefined }>();
  // The survey is known before the form is made: the code was checked first.
  const form = useForm(survey ? WithSurvey : PasswordOnly);
  const { errors, isSubmitting } = form.formState;
  const password = form.watch("password") ?? "";
  const info = form.watch("marketingInfo");

  // Spec §4: after set-up succeeds, wait 2 s, then the customer portal (the server's `next`, after any owed step).
  // biome-ignore lint/correctness/useExhaustiveDependencies: one timer for the answer; follow is the screen's own.
  useEffect(() => {
    if (!done) return;
    const timer = setTimeout(() => follow(done), REDIRECT_DELAY_MS.setupPassword);
    return () => clearTimeout(timer);
  }, [done]);

  const label = (option: string) => (OPTION_PROPER_NAMES.has(option) ? option : tk(`setup.options.${option}`));

  const onSubmit = form.handleSubmit(async (values) => {
    try {
      const answer = await gateway().call(api.setupPassword, {
        body: { code, password: values.password, marketingInfo: values.marketingInfo },
      });
      setDone(answer.next);
    } catch (error) {
      if (isScreenFailure(error)) return fail(error);
      if (applyFieldErrors(error, (field, message) => form.setError(field as never, { message }))) return;
      setFailure({ key: errorKey(error), guid: (error as ApiError).answer?.guid });
    }
  });

  // A code refused at submit (used in another tab, replaced by a newer link) gets the same screen as at load.
  if (failure && isCodeErrorKey(failure.key)) return <CodeProblem reason={failure.key} guid={failure.guid} takeFocus />;
  if (done) {
    return (
      <Layout>
        <h1 ref={heading} tabIndex={-1}>
          {t("setup.heading")}
        </h1>
        <Alert kind="success">{t("setup.success")}</Alert>
      </Layout>
    );
  }
  return (
    <Layout>
      <h1 ref={heading} tabIndex={-1}>
        {t("setup.heading")}
      </h1>
      {failure ? <Alert kind="error">{tk(failure.key)}</Alert> : null}
      <form onSubmit={onSubmit} noValidate>
        <PasswordField
          label={t("setup.password")}
          autoComplete="new-password"
          showRules
          value={password}
          error={errors.password?.message}
          {...form.register("password")}
        />
        {survey ? (
          <>
            <h2>{t("setup.tellUs")}</h2>
            {SELECTS.map(({ name, options }) => (
              <div key={name}>
                <Select
                  label={t(`setup.${name}`)}
                  placeholder={t("setup.select")}
                  options={options.map((o) => ({ value: o, label: label(o) }))}
                  error={errors[`marketingInfo.${name}`]?.message}
                  {...form.register(`marketingInfo.${name}`)}
                />
                {info?.[name] === "Other" ? (
                  <Field
                    label={t(`setup.${name}Other`)}
                    error={errors[`marketingInfo.${name}Other`]?.message}
                    {...form.register(`marketingInfo.${name}Other`)}
                  />
                ) : null}
              </div>
            ))}
            <Field
              label={t("setup.phone")}
              type="tel"
              autoComplete="tel"
              error={errors["marketingInfo.phoneNumber"]?.message}
              {...form.register("marketingInfo.phoneNumber")}
            />
          </>
        ) : null}
        <Button type="submit" disabled={isSubmitting}>
          {t("setup.submit")}
        </Button>
      </form>
    </Layout>
  );
}
