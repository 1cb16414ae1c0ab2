import { api, type Language, PASSWORD_POLICY_HINT, RegisterBody, trialMode } from "@gatehouse/contract";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { z } from "zod/mini";
import { ApiError, applyFieldErrors, gateway, isScreenFailure } from "../../api/index.ts";
import { useApp } from "../../app/context.tsx";
import { useScreenFailure } from "../../app/failure.tsx";
import { Link, Navigate, useNavigate, useSearchParams } from "../../app/routing.tsx";
import { usePageTitle } from "../../app/title.ts";
import { Alert } from "../../ui/Alert.tsx";
import { Button } from "../../ui/Button.tsx";
import { Checkbox } from "../../ui/Checkbox.tsx";
import { Field } from "../../ui/Field.tsx";
import { useForm } from "../../ui/form/useForm.ts";
import { PasswordField } from "../../ui/PasswordField.tsx";
import { Select } from "../../ui/Select.tsx";
import { useT } from "../../ui/useT.ts";
import { presetCountry, useCountrySelect } from "../register/countries.ts";
import { registrationContext, useHumanCheck } from "../register/HumanCheck.tsx";
import { PrivacyNotice } from "../register/PrivacyNotice.tsx";
import { rememberTrialRegistered, trialEmail, useTrialQuery } from "./flow.ts";
import { TrialLayout } from "./ProductStrip.tsx";
import styles from "./Trial.module.css";

const Form = z.pick(RegisterBody, {
  firstName: true,
  lastName: true,
  password: true,
  countryCode: true,
  newsletterSubscription: true,
});
type FormInput = z.input<typeof Form>;

/**
 * Trial step 4 (spec §2 "Trial flow" 4): a new account for the address the email check found free, in one step —
 * names, password, country, newsletter and the human check — made as a trial of the product (issue #12).
 */
export default function TrialRegister() {
  const [params] = useSearchParams();
  const { brand, settings } = useApp();
  const { t, i18n } = useTranslation();
  const tk = useT();
  const navigate = useNavigate();
  const fail = useScreenFailure();
  const { url, returnTo, productCode } = useTrialQuery();
  const human = useHumanCheck(settings.country === "CN");
  const [notice, setNotice] = useState<string>();
  const [redirecting, setRedirecting] = useState(false);
  const [emailError, setEmailError] = useState<string>();
  usePageTitle(t("titles.trialSignUp"));
  const email = trialEmail();

  const form = useForm(Form, {
    defaultValues: {
      firstName: "",
      lastName: "",
      password: "",
      countryCode: presetCountry(settings.country),
      newsletterSubscription: false,
    },
  });
  const { errors, isSubmitting } = form.formState;
  const countries = useCountrySelect(i18n.language as Language, true, form);
  const [firstName, lastName, password] = [form.watch("firstName"), form.watch("lastName"), form.watch("password")];

  const onSubmit = form.handleSubmit(async (values) => {
    if (!email) return;
    setNotice(undefined);
    setEmailError(undefined);
    const proof = human.proof();
    if (!proof) return;
    try {
      await gateway().call(api.register, {
        body: {
          ...values,
          email,
          ...proof,
          ...registrationContext(params, returnTo),
          productCode,
          ...trialMode(brand),
        },
      });
    } catch (error) {
      // Spec §4: on failure the captcha resets.
      human.reset();
      if (!(error instanceof ApiError)) return isScreenFailure(error) ? fail(error) : setNotice("network.unexpected");
      if (human.refused(error.code)) return;
      // The address has an account by now (another tab, say): sign in to it instead.
      if (error.code === "email_conflict") return navigate(url("TRIAL_LOGIN"));
      const onField = applyFieldErrors(error, (field, message) =>
        field === "email" ? setEmailError(message) : form.setError(field as keyof FormInput, { message }),
      );
      if (!onField) setNotice(`errors.${error.code}`);
      return;
    }
    setRedirecting(true);
    rememberTrialRegistered(email);
    navigate(url("TRIAL_REGISTER_SUCCESS"));
  });

  if (!email) return <Navigate to={url("TRIAL_EMAIL_CHECK")} replace />;
  // Spec §2: the button waits for the names and the password, and for every field error to be mended.
  const filled = [firstName, lastName, password].every((value) => (value ?? "").trim() !== "");
  const hasErrors = Object.values(errors).some(Boolean);
  const busy = isSubmitting || redirecting;
  return (
    <TrialLayout>
      <h1>{t("register.title.trial")}</h1>
      {notice ? <Alert kind="error">{tk(notice)}</Alert> : null}
      <form onSubmit={onSubmit} noValidate>
        <Field label={t("register.workEmail")} type="email" value={email} readOnly error={emailError} />
        <p className={styles.links}>
          <Link to={url("TRIAL_EMAIL_CHECK")}>{t("trial.changeEmail")}</Link>
        </p>
        <Field
          label={t("register.firstName")}
          autoComplete="given-name"
          error={errors.firstName?.message}
          {...form.register("firstName")}
        />
        <Field
          label={t("register.lastName")}
          autoComplete="family-name"
          error={errors.lastName?.message}
          {...form.register("lastName")}
        />
        <PasswordField
          label={t("register.password")}
          autoComplete="new-password"
          showRules
          ruleSet="register"
          rulesNote={t(PASSWORD_POLICY_HINT, { brand: brand.name })}
          error={errors.password?.message}
          value={password ?? ""}
          {...form.register("password")}
        />
        <Select
          label={t("register.country")}
          placeholder={t("register.countryPlaceholder")}
          autoComplete="country"
          options={countries}
          error={errors.countryCode?.message}
          {...form.register("countryCode", { onChange: () => void form.trigger("countryCode") })}
        />
        <Checkbox label={t("register.newsletter")} {...form.register("newsletterSubscription")} />
        {human.view}
        <PrivacyNotice i18nKey="register.privacyNotice" brand={brand} className={styles.notice} />
        <Button type="submit" disabled={busy || !filled || hasErrors}>
          {t("register.submit")}
        </Button>
      </form>
    </TrialLayout>
  );
}
