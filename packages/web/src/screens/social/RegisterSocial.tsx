import {
  type AnswerOf,
  api,
  type Language,
  registerHeadingFor,
  routeUrl,
  SOCIAL_PLATFORM_NAMES,
  SocialRegisterBody,
} from "@gatehouse/contract";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { ApiError, applyFieldErrors, gateway, isScreenFailure } from "../../api/index.ts";
import { useApp } from "../../app/context.tsx";
import { useScreenFailure } from "../../app/failure.tsx";
import { Layout } from "../../app/Layout.tsx";
import { Link, useNavigate, useSearchParams } from "../../app/routing.tsx";
import { usePageTitle } from "../../app/title.ts";
import { Alert } from "../../ui/Alert.tsx";
import { Button } from "../../ui/Button.tsx";
import { Checkbox } from "../../ui/Checkbox.tsx";
import { Field } from "../../ui/Field.tsx";
import { useForm } from "../../ui/form/useForm.ts";
import { Select } from "../../ui/Select.tsx";
import { Spinner } from "../../ui/Spinner.tsx";
import { useT } from "../../ui/useT.ts";
import { startSocialSignIn } from "../login/social.ts";
import { presetCountry, useCountrySelect } from "../register/countries.ts";
import { PrivacyNotice } from "../register/PrivacyNotice.tsx";
import { SignInExpired } from "./Expired.tsx";
import { hintFrom, pendingUrl, usePendingSignIn } from "./pending.ts";
import { rememberRegistered } from "./registered.ts";
import styles from "./Social.module.css";

type FormInput = { firstName: string; lastName: string; countryCode: string; newsletterSubscription: boolean };

/**
 * Social registration (spec §2, §4, issue #11): the provider's name and address, the person's names, country and
 * newsletter, then CREATE ACCOUNT. What is shown and sent comes from the server's pending answer; the query only
 * paints the first frame.
 */
export default function RegisterSocial() {
  const [params] = useSearchParams();
  const { brand, settings } = useApp();
  const { t, i18n } = useTranslation();
  const tk = useT();
  const navigate = useNavigate();
  const fail = useScreenFailure();
  usePageTitle(t("titles.signUp"));
  const { state, reload } = usePendingSignIn();
  const [notice, setNotice] = useState<string>();
  const [exists, setExists] = useState(false);
  const [redirecting, setRedirecting] = useState(false);
  const hint = hintFrom(params);
  const pending = state.status === "ready" ? state.pending : undefined;
  const shown = pending ?? hint;
  const returnTo = pending ? (pending.returnTo ?? null) : params.get("return_to");
  const heading = registerHeadingFor(returnTo);

  const form = useForm(SocialRegisterBody, {
    defaultValues: {
      firstName: hint?.firstName ?? "",
      lastName: hint?.lastName ?? "",
      countryCode: presetCountry(settings.country),
      newsletterSubscription: false,
    },
  });
  const { errors, isSubmitting } = form.formState;
  const countries = useCountrySelect(i18n.language as Language, true, form);

  // The server's answer decides: a link goes to its own screen; its names replace the query's where untouched.
  // biome-ignore lint/correctness/useExhaustiveDependencies: once per answer; the hint is the address's.
  useEffect(() => {
    if (!pending) return;
    if (pending.kind === "link") return navigate(pendingUrl(pending), { replace: true });
    for (const name of ["firstName", "lastName"] as const)
      if (form.getValues(name) === (hint?.[name] ?? "")) form.setValue(name, pending[name]);
  }, [pending, form, navigate]);

  const onSubmit = form.handleSubmit(async (values) => {
    setNotice(undefined);
    setExists(false);
    let answer: AnswerOf<typeof api.socialRegister>;
    try {
      answer = await gateway().call(api.socialRegister, { body: values });
    } catch (error) {
      if (!(error instanceof ApiError)) return isScreenFailure(error) ? fail(error) : setNotice("network.unexpected");
      if (error.code === "social_invalid_authentication") return void (await reload());
      // Spec §8: the address was taken meanwhile; where linking may be offered, the server now offers it.
      if (error.code === "social_email_exists") {
        if ((await reload())?.kind !== "link") setExists(true);
        return;
      }
      if (!applyFieldErrors(error, (field, message) => form.setError(field as keyof FormInput, { message })))
        setNotice(`errors.${error.code}`);
      return;
    }
    setRedirecting(true);
    const state = rememberRegistered({ ...answer, ...(returnTo ? { returnTo } : {}) });
    navigate(routeUrl("REGISTER_SOCIAL_COMPLETE"), { replace: true, state });
  });

  if (state.status === "gone") return <SignInExpired returnTo={returnTo} focus={form.formState.isSubmitted} />;
  if (!shown) {
    return (
      <Layout>
        <Spinner label={t("app.loading")} />
      </Layout>
    );
  }

  const platform = shown.platform;
  const platformName = platform ? SOCIAL_PLATFORM_NAMES[platform] : undefined;
  const busy = isSubmitting || redirecting;
  const signIn = routeUrl("LOGIN", { return_to: returnTo ?? undefined });
  // Google's Change opens its account chooser (spec §2), back here with the account chosen there.
  const change = () =>
    void startSocialSignIn("google", {
      returnTo,
      autoRegister: true,
      prompt: "select_account",
      fail,
      onError: setNotice,
    });

  // Issue #25: Cancel is not a dead end nor a pretence: the server forgets the provider's answer, and sign-in says
  // calmly that the sign-in with the provider was cancelled.
  const cancel = async () => {
    setRedirecting(true);
    try {
      await gateway().call(api.socialCancel);
    } catch (error) {
      setRedirecting(false);
      return isScreenFailure(error) ? fail(error) : setNotice("network.unexpected");
    }
    navigate(routeUrl("LOGIN", { return_to: returnTo ?? undefined, cancelled: platform }), { replace: true });
  };

  return (
    <Layout>
      <h1>{t(`register.title.${heading}`)}</h1>
      {platformName ? <p>{t("socialRegister.intro", { platform: platformName, brand: brand.name })}</p> : null}
      {heading === "trial" ? (
        <>
          <Field label={t("register.workEmail")} type="email" value={shown.email} readOnly />
          <p className={styles.links}>
            <Link to={routeUrl("REGISTER", { return_to: returnTo ?? undefined })}>
              {t("socialRegister.changeEmail")}
            </Link>
          </p>
        </>
      ) : (
        <div className={styles.identity}>
          <div>
            <p className={styles.name}>{shown.fullName}</p>
            <p className={styles.email}>{shown.email}</p>
          </div>
          {platform === "google" ? (
            <Button
              variant="link"
              onClick={change}
              disabled={busy}
              aria-label={t("socialRegister.changeAccount", { platform: platformName })}
            >
              {t("socialRegister.change")}
            </Button>
          ) : null}
        </div>
      )}
      {notice ? <Alert kind="error">{tk(notice)}</Alert> : null}
      {exists ? (
        <Alert kind="error">
          <p>{t("errors.social_email_exists")}</p>
          <Link to={signIn}>{t("socialRegister.existsSignIn")}</Link>
        </Alert>
      ) : null}
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
        <PrivacyNotice i18nKey="register.privacyNotice" brand={brand} className={styles.notice} />
        <div className={styles.actions}>
          <Button type="submit" disabled={busy || state.status === "loading"}>
            {t("socialRegister.submit")}
          </Button>
          <Button variant="secondary" onClick={() => void cancel()} disabled={busy}>
            {t("socialRegister.cancel")}
          </Button>
        </div>
      </form>
    </Layout>
  );
}
