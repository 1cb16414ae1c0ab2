import { type AnswerOf, api, LoginBody, loginHeadingFor, routeUrl } from "@gatehouse/contract";
import { useEffect, useState } from "react";
import { Trans, useTranslation } from "react-i18next";
import { z } from "zod/mini";
import { ApiError, applyFieldErrors, errorKey, gateway, isScreenFailure } from "../../api/index.ts";
import { useApp } from "../../app/context.tsx";
import { useScreenFailure } from "../../app/failure.tsx";
import { Layout } from "../../app/Layout.tsx";
import { routeIdFor } from "../../app/router.tsx";
import { Link, useLocation, useNavigate, useSearchParams } from "../../app/routing.tsx";
import { sessionAnswer, useSession } from "../../app/session.ts";
import { usePageTitle } from "../../app/title.ts";
import { Alert } from "../../ui/Alert.tsx";
import { Button } from "../../ui/Button.tsx";
import { Field } from "../../ui/Field.tsx";
import { useForm } from "../../ui/form/useForm.ts";
import { PasswordField } from "../../ui/PasswordField.tsx";
import { useT } from "../../ui/useT.ts";
import { CorporateHint, useCorporateHint } from "./corporate.tsx";
import { destinationAfterSignIn, destinationWhenSignedIn, isInternal } from "./destination.ts";
import styles from "./Login.module.css";
import { type Platform, startSocialSignIn } from "./social.ts";

const Form = z.pick(LoginBody, { email: true, password: true });
type FormInput = { email: string; password: string };

type Notice =
  | { kind: "error"; code: string }
  | { kind: "notActive"; email: string }
  | { kind: "resent"; email: string }
  | { kind: "blocked" };

/** Sign in (spec §2 "Login", §4, §5, §8). */
export default function Login() {
  const sessionState = useSession();
  const session = sessionState.status === "ready" ? sessionState.session : null;
  const [params] = useSearchParams();
  const returnTo = params.get("return_to");
  const { brand, settings, returnPolicy } = useApp();
  const { t } = useTranslation();
  const tk = useT();
  const navigate = useNavigate();
  const fail = useScreenFailure();
  const [notice, setNotice] = useState<Notice>();
  const [redirecting, setRedirecting] = useState(false);
  // The screen stays mounted while the next one loads (and the shell asks for the session again meanwhile).
  const current = routeIdFor(useLocation().pathname) === "LOGIN";
  const corporateHint = useCorporateHint();
  usePageTitle(t("titles.signIn"));

  const form = useForm(Form);
  const { errors, isSubmitting } = form.formState;
  const password = form.watch("password") ?? "";

  const go = (destination: string) => {
    setRedirecting(true);
    if (isInternal(destination, returnPolicy.selfOrigin))
      navigate(destination.replace(returnPolicy.selfOrigin, ""), { replace: true });
    else window.location.assign(destination);
  };

  // Spec §4: a signed-in visitor is sent on as soon as the session answer says so (the form shows meanwhile).
  // Only while this is the current screen: a sign-in that is already on its way elsewhere is not redirected again.
  // biome-ignore lint/correctness/useExhaustiveDependencies: acts on the session answer, once per account.
  useEffect(() => {
    if (session && current && !redirecting) go(destinationWhenSignedIn(returnTo, returnPolicy, session.RequiredStep));
  }, [session?.UserGUID, current]);

  const onSubmit = form.handleSubmit(async (values) => {
    setNotice(undefined);
    // Issue #9: the form renders before the session answer; a submit waits for it, and a signed-in visitor is
    // sent on by the effect above instead of signing in again (a failed session call shows the retry screen).
    if (await sessionAnswer().catch(() => "failed")) return;
    let answer: AnswerOf<typeof api.login>;
    try {
      answer = await gateway().call(api.login, { body: values });
    } catch (error) {
      if (!(error instanceof ApiError))
        return isScreenFailure(error) ? fail(error) : setNotice({ kind: "error", code: "network.unexpected" });
      if (error.code === "invalid_authentication") {
        form.setError("password", { message: "errors.invalid_authentication" }, { shouldFocus: true });
      } else if (error.code === "user_not_active") {
        setNotice({ kind: "notActive", email: values.email });
      } else if (error.code === "user_temporarily_blocked") {
        setNotice({ kind: "blocked" });
      } else if (!applyFieldErrors(error, (field, message) => form.setError(field as keyof FormInput, { message }))) {
        setNotice({ kind: "error", code: `errors.${error.code}` });
      }
      return;
    }
    go(destinationAfterSignIn(answer, returnTo, returnPolicy, brand));
  });

  const resend = async (email: string) => {
    try {
      await gateway().call(api.resendActivation, { body: { email, returnTo: returnTo ?? undefined } });
      setNotice({ kind: "resent", email });
    } catch (error) {
      if (isScreenFailure(error)) return fail(error);
      setNotice({ kind: "error", code: errorKey(error) });
    }
  };

  const social = (platform: Platform) =>
    startSocialSignIn(platform, {
      returnTo,
      autoRegister: false,
      fail,
      onError: (code) => setNotice({ kind: "error", code }),
    });

  if (session || redirecting) {
    return (
      <Layout>
        <p role="status">{t("app.loading")}</p>
      </Layout>
    );
  }

  const heading = loginHeadingFor(returnTo);
  const busy = isSubmitting || redirecting;
  const { flags } = settings;
  const promo = brand.traits.promoCover ? (
    <aside className={styles.promo}>
      <h2>{t("login.promoTitle")}</h2>
      <p>{t("login.promoBody")}</p>
    </aside>
  ) : undefined;

  return (
    <Layout aside={promo}>
      <h1>{t(`login.heading.${heading}`)}</h1>
      {notice?.kind === "error" ? <Alert kind="error">{tk(notice.code)}</Alert> : null}
      {notice?.kind === "blocked" ? (
        <Alert kind="error">
          {/* The message names "Forgot your password?": those words are the link. */}
          <p>
            <Trans
              i18nKey="login.blocked"
              components={{ recover: <Link to={routeUrl("PASSWORD_RECOVER", { return_to: returnTo ?? undefined })} /> }}
            />
          </p>
        </Alert>
      ) : null}
      {notice?.kind === "notActive" ? (
        <Alert kind="error">
          <p>{t("errors.user_not_active")}</p>
          <Button variant="link" onClick={() => void resend(notice.email)}>
            {t("login.resendActivation")}
          </Button>
        </Alert>
      ) : null}
      {notice?.kind === "resent" ? (
        <Alert kind="success">{t("login.resendSuccess", { email: notice.email })}</Alert>
      ) : null}
      <form onSubmit={onSubmit} noValidate>
        <Field
          label={t("login.email")}
          type="text"
          inputMode="email"
          autoComplete="username"
          autoCapitalize="off"
          spellCheck={false}
          error={errors.email?.message}
          {...form.register("email", { onBlur: (e) => corporateHint.check(e.target.value) })}
        />
        {corporateHint.corporate ? <CorporateHint returnTo={returnTo} /> : null}
        <PasswordField
          label={t("login.password")}
          autoComplete="current-password"
          error={errors.password?.message}
          value={password}
          {...form.register("password")}
        />
        {/* While blocked, the message above carries "Forgot your password?" as its link: said once on the page. */}
        {notice?.kind === "blocked" ? null : (
          <div className={styles.links}>
            <Link to={routeUrl("PASSWORD_RECOVER", { return_to: returnTo ?? undefined })}>
              {t("login.forgotPassword")}
            </Link>
          </div>
        )}
        <Button type="submit" disabled={busy}>
          {t("login.submit")}
        </Button>
      </form>
      {flags.SOCIAL_REGISTER || flags.TRIMBLE_LOGIN || flags.CORPORATE_LOGIN ? (
        <>
          <div className={styles.divider}>{t("login.or")}</div>
          <div className={styles.providers}>
            {flags.SOCIAL_REGISTER ? (
              <>
                <Button variant="secondary" disabled={busy} onClick={() => void social("google")}>
                  {t("login.google")}
                </Button>
                <Button variant="secondary" disabled={busy} onClick={() => void social("facebook")}>
                  {t("login.facebook")}
                </Button>
              </>
            ) : null}
            {flags.TRIMBLE_LOGIN ? (
              <Button variant="secondary" disabled={busy} onClick={() => void social("trimble")}>
                {t("login.trimble")}
              </Button>
            ) : null}
            {flags.CORPORATE_LOGIN ? (
              <Link
                className={styles.providerLink}
                to={routeUrl("CORPORATE_LOGIN", { return_to: returnTo ?? undefined })}
              >
                {t("login.corporate")}
              </Link>
            ) : null}
          </div>
        </>
      ) : null}
      <p className={styles.create}>
        {t("login.noAccount")}{" "}
        <Link to={routeUrl("REGISTER", { return_to: returnTo ?? undefined })}>{t("login.createAccount")}</Link>
      </p>
    </Layout>
  );
}
