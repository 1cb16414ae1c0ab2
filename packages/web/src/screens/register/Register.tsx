import {
  api,
  type Language,
  PASSWORD_POLICY_HINT,
  registerHeadingFor,
  routeUrl,
  trialMode,
  trialProductCode,
} from "@gatehouse/contract";
import { Fragment, useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { ApiError, gateway, isScreenFailure } from "../../api/index.ts";
import { useApp } from "../../app/context.tsx";
import { useScreenFailure } from "../../app/failure.tsx";
import { Layout } from "../../app/Layout.tsx";
import { Link, useNavigate, useSearchParams } from "../../app/routing.tsx";
import { usePageTitle } from "../../app/title.ts";
import { Alert } from "../../ui/Alert.tsx";
import { Button } from "../../ui/Button.tsx";
import { Checkbox } from "../../ui/Checkbox.tsx";
import { Field } from "../../ui/Field.tsx";
import { useFocusOnChange } from "../../ui/focus.ts";
import { useForm } from "../../ui/form/useForm.ts";
import { PasswordField } from "../../ui/PasswordField.tsx";
import { Select } from "../../ui/Select.tsx";
import { useT } from "../../ui/useT.ts";
import { CorporateHint } from "../login/corporate.tsx";
import { WaysIn } from "../login/WaysIn.tsx";
import { presetCountry, useCountrySelect } from "./countries.ts";
import { registrationContext, useHumanCheck } from "./HumanCheck.tsx";
import { PrivacyNotice } from "./PrivacyNotice.tsx";
import styles from "./Register.module.css";
import { REGISTERED_EMAIL_KEY } from "./registered.ts";
import { RegisterForm, type RegisterInput, STEP_FIELDS, useServerChecks } from "./server-checks.ts";
import { useRegistrationStep } from "./steps.ts";

/** Registration in two steps (spec §2, §4, §5). */
export default function Register() {
  const [params] = useSearchParams();
  const returnTo = params.get("return_to");
  const presetEmail = params.get("email");
  const { brand, settings } = useApp();
  const { t, i18n } = useTranslation();
  const tk = useT();
  const navigate = useNavigate();
  const fail = useScreenFailure();
  usePageTitle(t("titles.signUp"));

  const { step, toStepTwo, toStepOne } = useRegistrationStep();
  const stepHeading = useFocusOnChange(step);
  const stepId = useId();
  const [notice, setNotice] = useState<string>();
  const [redirecting, setRedirecting] = useState(false);
  const [advancing, setAdvancing] = useState(false);
  const human = useHumanCheck(settings.country === "CN");
  const heading = registerHeadingFor(returnTo);
  const trial = heading === "trial";

  const form = useForm(RegisterForm, {
    defaultValues: {
      email: presetEmail ?? "",
      password: "",
      firstName: "",
      lastName: "",
      countryCode: presetCountry(settings.country),
      newsletterSubscription: false,
    },
  });
  const { errors, isSubmitting } = form.formState;
  const { emailCheck, setEmailCheck, checkEmail, emailChecked, passwordRefused } = useServerChecks(form);
  const password = form.watch("password") ?? "";

  const countries = useCountrySelect(i18n.language as Language, step === 2, form);

  const next = async () => {
    if (advancing) return;
    setAdvancing(true);
    try {
      if ((await emailChecked(emailCheck)) === "conflict") return;
      if (!(await form.trigger([...STEP_FIELDS[1]]))) return;
      if (await passwordRefused(form.getValues("password"))) return;
      toStepTwo();
    } finally {
      setAdvancing(false);
    }
  };

  const onSubmit = form.handleSubmit(async (values) => {
    setNotice(undefined);
    const proof = human.proof();
    if (!proof) return;
    try {
      await gateway().call(api.register, {
        body: {
          ...values,
          ...proof,
          ...registrationContext(params, returnTo),
          // Issue #12: the server refuses a malformed product code, so a bad one in the address becomes the default.
          ...(trial
            ? {
                productCode: trialProductCode(params.get("productCode"), settings.trialProductCode),
                ...trialMode(brand),
              }
            : {}),
        },
      });
    } catch (error) {
      // Spec §4: on failure the captcha resets.
      human.reset();
      if (!(error instanceof ApiError)) return isScreenFailure(error) ? fail(error) : setNotice("network.unexpected");
      if (human.refused(error.code)) return;
      if (error.code === "email_conflict") {
        setEmailCheck("conflict");
        toStepOne();
        return form.setError("email", { type: "server", message: "validation.email.conflict" });
      }
      const fields = error.answer.fields ?? [];
      for (const field of fields)
        form.setError(field.field as keyof RegisterInput, { type: "server", message: field.message });
      if (fields.some((f) => (STEP_FIELDS[1] as readonly string[]).includes(f.field))) toStepOne();
      if (fields.length === 0) setNotice(`errors.${error.code}`);
      return;
    }
    setRedirecting(true);
    sessionStorage.setItem(REGISTERED_EMAIL_KEY, values.email);
    navigate(routeUrl("REGISTER_COMPLETE", { return_to: returnTo ?? undefined }), { state: { email: values.email } });
  });

  // The address's check does not disable Continue: Enter typed while it runs would do nothing (a disabled default
  // button blocks implicit submission); next() waits for the check instead.
  const busy = isSubmitting || redirecting || advancing;
  const signInLink = routeUrl("LOGIN", { return_to: returnTo ?? undefined });
  const emailField = form.register("email", {
    onBlur: (e) => void checkEmail(e.target.value),
    onChange: () => setEmailCheck("idle"),
  });

  return (
    <Layout>
      <p id={stepId} className={styles.step}>
        {t("register.step", { step })}
      </p>
      {/* Each step's inputs are its own elements (the keys), so no value can pass from one field to another. */}
      {step === 1 ? (
        <Fragment key="step-1">
          <h1 ref={stepHeading} tabIndex={-1} aria-describedby={stepId}>
            {t(`register.title.${heading}`)}
          </h1>
          {notice ? <Alert kind="error">{tk(notice)}</Alert> : null}
          <form
            onSubmit={(e) => {
              e.preventDefault();
              void next();
            }}
            noValidate
          >
            <Field
              label={t(trial ? "register.workEmail" : "register.email")}
              type="email"
              autoComplete="email"
              readOnly={Boolean(presetEmail)}
              error={errors.email?.message}
              {...emailField}
            />
            {emailCheck === "conflict" ? (
              <p className={styles.hint}>
                <Link to={signInLink}>{t("register.conflictSignIn")}</Link>
              </p>
            ) : null}
            {emailCheck === "corporate" ? (
              <CorporateHint returnTo={returnTo} email={() => form.getValues("email")} />
            ) : null}
            <PasswordField
              label={t("register.password")}
              autoComplete="new-password"
              showRules
              ruleSet="register"
              rulesNote={t(PASSWORD_POLICY_HINT, { brand: brand.name })}
              error={errors.password?.message}
              value={password}
              {...form.register("password")}
            />
            <PrivacyNotice i18nKey="register.privacyNotice" brand={brand} className={styles.notice} />
            <Button type="submit" disabled={busy}>
              {t("register.continue")}
            </Button>
          </form>
          <WaysIn
            purpose="register"
            returnTo={returnTo}
            disabled={busy}
            onError={setNotice}
            typedEmail={() => form.getValues("email")}
          />
          <p className={styles.footer}>
            {t("register.haveAccount")} <Link to={signInLink}>{t("register.signIn")}</Link>
          </p>
        </Fragment>
      ) : (
        <Fragment key="step-2">
          <h1 ref={stepHeading} tabIndex={-1} aria-describedby={stepId}>
            {t("register.stepTitle")}
          </h1>
          <p className={styles.subtitle}>{t("register.stepSubtitle")}</p>
          {notice ? <Alert kind="error">{tk(notice)}</Alert> : null}
          <form onSubmit={onSubmit} noValidate>
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
            <div className={styles.actions}>
              <Button type="submit" disabled={busy}>
                {t("register.submit")}
              </Button>
              <Button variant="link" onClick={toStepOne} disabled={busy}>
                {t("register.back")}
              </Button>
            </div>
          </form>
        </Fragment>
      )}
    </Layout>
  );
}
