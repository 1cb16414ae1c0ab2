import { api, type Language, RegisterBody, registerHeadingFor, routeUrl } from "@gatehouse/contract";
import { zodResolver } from "@hookform/resolvers/zod";
import { useCallback, useEffect, useMemo, useState } from "react";
import { useForm } from "react-hook-form";
import { useTranslation } from "react-i18next";
import { Link, useNavigate, useSearchParams } from "react-router";
import { ApiError, gateway, isScreenFailure } from "../../api/index.ts";
import { useApp } from "../../app/context.tsx";
import { useScreenFailure } from "../../app/failure.tsx";
import { Layout } from "../../app/Layout.tsx";
import { usePageTitle } from "../../app/title.ts";
import { Alert } from "../../ui/Alert.tsx";
import { Button } from "../../ui/Button.tsx";
import { Checkbox } from "../../ui/Checkbox.tsx";
import { Field } from "../../ui/Field.tsx";
import { useFocusOnChange } from "../../ui/focus.ts";
import { PasswordField } from "../../ui/PasswordField.tsx";
import { Select } from "../../ui/Select.tsx";
import { useT } from "../../ui/useT.ts";
import { CorporateHint } from "../login/corporate.tsx";
import { type Platform, startSocialSignIn } from "../login/social.ts";
import { BotCheck } from "./BotCheck.tsx";
import { Captcha } from "./Captcha.tsx";
import styles from "./Register.module.css";
import { REGISTERED_EMAIL_KEY } from "./registered.ts";

const Form = RegisterBody.pick({
  email: true,
  password: true,
  firstName: true,
  lastName: true,
  countryCode: true,
  newsletterSubscription: true,
});
type FormInput = {
  email: string;
  password: string;
  firstName: string;
  lastName: string;
  countryCode: string;
  newsletterSubscription: boolean;
};
const STEP_FIELDS = { 1: ["email", "password"], 2: ["firstName", "lastName", "countryCode"] } as const;
type EmailCheck = "idle" | "checking" | "ok" | "conflict" | "corporate";

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

  const [step, setStepRaw] = useState<1 | 2>(1);
  // Spec §4: the step is clamped to 1–2.
  const setStep = (next: number) => setStepRaw(Math.min(2, Math.max(1, next)) as 1 | 2);
  const stepHeading = useFocusOnChange(step);
  const [emailCheck, setEmailCheck] = useState<EmailCheck>("idle");
  const [notice, setNotice] = useState<string>();
  const [redirecting, setRedirecting] = useState(false);
  const [countries, setCountries] = useState<{ code: string; name: string }[]>([]);
  const [botToken, setBotToken] = useState<string>();
  const [captcha, setCaptcha] = useState({ id: "", answer: "" });
  const [humanError, setHumanError] = useState<string>();
  const [generation, setGeneration] = useState(0);
  const inCN = settings.country === "CN";
  const heading = registerHeadingFor(returnTo);
  const trial = heading === "trial";

  const form = useForm<FormInput>({
    resolver: zodResolver(Form) as never,
    mode: "onTouched",
    defaultValues: {
      email: presetEmail ?? "",
      password: "",
      firstName: "",
      lastName: "",
      countryCode: "",
      newsletterSubscription: false,
    },
  });
  const { errors, isSubmitting } = form.formState;
  const password = form.watch("password") ?? "";

  const language = i18n.language as Language;
  // The server sends the list in the order people look for names in this language (kanji by reading in
  // Japanese, which no Intl.Collator does), so it is shown as it comes.
  const sortedCountries = useMemo(() => countries.map((c) => ({ value: c.code, label: c.name })), [countries]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: the names come in the UI language, so a switch refetches.
  useEffect(() => {
    if (step !== 2) return;
    gateway()
      .call(api.countries)
      .then(setCountries, (error) => (isScreenFailure(error) ? fail(error) : undefined));
  }, [step, fail, language]);

  /** Spec §5: the e-mail is checked on blur, by the server too (taken, invalid, corporate). */
  const checkEmail = async (value: string) => {
    if (!(await form.trigger("email"))) return setEmailCheck("idle");
    setEmailCheck("checking");
    try {
      const answer = await gateway().call(api.registerValidate, { body: { email: value } });
      if (answer.status === "conflict") {
        setEmailCheck("conflict");
        form.setError("email", { type: "server", message: "validation.email.conflict" });
      } else if (answer.status === "invalid") {
        setEmailCheck("idle");
        form.setError("email", { type: "server", message: answer.message ?? "validation.email.invalid" });
      } else {
        setEmailCheck(answer.corporate ? "corporate" : "ok");
      }
    } catch (error) {
      setEmailCheck("idle");
      if (isScreenFailure(error)) fail(error);
    }
  };

  const next = async () => {
    if (emailCheck === "conflict") return;
    if (await form.trigger([...STEP_FIELDS[1]])) setStep(2);
  };

  const onSubmit = form.handleSubmit(async (values) => {
    setNotice(undefined);
    setHumanError(undefined);
    if (!inCN && !botToken) return setHumanError("botCheck.required");
    const utm = (name: string) => params.get(name) ?? undefined;
    try {
      await gateway().call(api.register, {
        body: {
          ...values,
          ...(inCN ? { captchaGUID: captcha.id, captchaAnswer: captcha.answer } : { botCheck: botToken }),
          returnTo: returnTo ?? undefined,
          utmMedium: utm("utm_medium"),
          utmSource: utm("utm_source"),
          utmCampaign: utm("utm_campaign"),
          httpReferer: document.referrer || undefined,
          ...(trial ? { isTrial: true, productCode: utm("productCode") } : {}),
        },
      });
    } catch (error) {
      // Spec §4: on failure the captcha resets.
      setBotToken(undefined);
      setGeneration((g) => g + 1);
      if (!(error instanceof ApiError)) return isScreenFailure(error) ? fail(error) : setNotice("network.unexpected");
      if (error.code === "captcha_incorrect") return setHumanError("errors.captcha_incorrect");
      if (error.code === "bot_check_failed") return setHumanError("errors.bot_check_failed");
      if (error.code === "email_conflict") {
        setEmailCheck("conflict");
        setStep(1);
        return form.setError("email", { type: "server", message: "validation.email.conflict" });
      }
      const fields = error.answer.fields ?? [];
      for (const field of fields)
        form.setError(field.field as keyof FormInput, { type: "server", message: field.message });
      if (fields.some((f) => f.field === "email" || f.field === "password")) setStep(1);
      if (fields.length === 0) setNotice(`errors.${error.code}`);
      return;
    }
    setRedirecting(true);
    sessionStorage.setItem(REGISTERED_EMAIL_KEY, values.email);
    navigate(routeUrl("REGISTER_COMPLETE", { return_to: returnTo ?? undefined }), { state: { email: values.email } });
  });

  const onToken = useCallback((token: string | undefined) => {
    setBotToken(token);
    if (token) setHumanError(undefined);
  }, []);

  const social = (platform: Platform) =>
    startSocialSignIn(platform, { returnTo, autoRegister: true, fail, onError: setNotice });

  const busy = isSubmitting || redirecting || emailCheck === "checking";
  const signInLink = routeUrl("LOGIN", { return_to: returnTo ?? undefined });
  const emailField = form.register("email", {
    onBlur: (e) => void checkEmail(e.target.value),
    onChange: () => setEmailCheck("idle"),
  });

  return (
    <Layout>
      {step === 1 ? (
        <>
          <h1 ref={stepHeading} tabIndex={-1}>
            {t(`register.title.${heading}`)}
          </h1>
          <p className="visually-hidden">{t("register.step", { step: 1 })}</p>
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
            {emailCheck === "corporate" ? <CorporateHint returnTo={returnTo} /> : null}
            <PasswordField
              label={t("register.password")}
              autoComplete="new-password"
              showRules
              error={errors.password?.message}
              value={password}
              {...form.register("password")}
            />
            <p className={styles.notice}>
              {t("register.privacyNotice", { brand: brand.name })} <a href={brand.links.terms}>{t("footer.terms")}</a>
              <a href={brand.links.privacy}>{t("footer.privacy")}</a>
            </p>
            <Button type="submit" disabled={busy}>
              {t("register.continue")}
            </Button>
          </form>
          {settings.flags.SOCIAL_REGISTER || settings.flags.TRIMBLE_REGISTER || settings.flags.CORPORATE_REGISTER ? (
            <div className={styles.providers}>
              {settings.flags.SOCIAL_REGISTER ? (
                <>
                  <Button variant="secondary" disabled={busy} onClick={() => void social("google")}>
                    {t("register.google")}
                  </Button>
                  <Button variant="secondary" disabled={busy} onClick={() => void social("facebook")}>
                    {t("register.facebook")}
                  </Button>
                </>
              ) : null}
              {settings.flags.TRIMBLE_REGISTER ? (
                <Button variant="secondary" disabled={busy} onClick={() => void social("trimble")}>
                  {t("register.trimble")}
                </Button>
              ) : null}
              {settings.flags.CORPORATE_REGISTER ? (
                <Link to={routeUrl("CORPORATE_LOGIN", { return_to: returnTo ?? undefined })}>
                  {t("register.corporate")}
                </Link>
              ) : null}
            </div>
          ) : null}
          <p className={styles.footer}>
            {t("register.haveAccount")} <Link to={signInLink}>{t("register.signIn")}</Link>
          </p>
        </>
      ) : (
        <>
          <h1 ref={stepHeading} tabIndex={-1}>
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
              options={sortedCountries}
              error={errors.countryCode?.message}
              {...form.register("countryCode", { onChange: () => void form.trigger("countryCode") })}
            />
            <Checkbox label={t("register.newsletter")} {...form.register("newsletterSubscription")} />
            <div className={styles.human}>
              {inCN ? (
                <Captcha answer={captcha.answer} onChange={setCaptcha} error={humanError} generation={generation} />
              ) : (
                <>
                  <BotCheck onToken={onToken} generation={generation} />
                  {humanError ? (
                    <p role="alert" className={styles.hint}>
                      {tk(humanError)}
                    </p>
                  ) : null}
                </>
              )}
            </div>
            <div className={styles.actions}>
              <Button type="submit" disabled={busy}>
                {t("register.submit")}
              </Button>
              <Button variant="link" onClick={() => setStep(1)} disabled={busy}>
                {t("register.back")}
              </Button>
            </div>
          </form>
        </>
      )}
    </Layout>
  );
}
