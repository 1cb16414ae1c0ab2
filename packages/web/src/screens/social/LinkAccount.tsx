import { type AnswerOf, api, routeUrl, SOCIAL_PLATFORM_NAMES, SocialLinkBody } from "@gatehouse/contract";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { z } from "zod/mini";
import { ApiError, applyFieldErrors, gateway, isScreenFailure } from "../../api/index.ts";
import { useApp } from "../../app/context.tsx";
import { useScreenFailure } from "../../app/failure.tsx";
import { Layout } from "../../app/Layout.tsx";
import { Link, useNavigate, useSearchParams } from "../../app/routing.tsx";
import { usePageTitle } from "../../app/title.ts";
import { Alert } from "../../ui/Alert.tsx";
import { Button } from "../../ui/Button.tsx";
import { Field } from "../../ui/Field.tsx";
import { useForm } from "../../ui/form/useForm.ts";
import { PasswordField } from "../../ui/PasswordField.tsx";
import { Spinner } from "../../ui/Spinner.tsx";
import { tagged } from "../../ui/tagged.tsx";
import { useT } from "../../ui/useT.ts";
import { useContinuation } from "../login/continue.ts";
import { SignInExpired } from "./Expired.tsx";
import { hintFrom, pendingUrl, usePendingSignIn } from "./pending.ts";
import styles from "./Social.module.css";

const Form = z.pick(SocialLinkBody, { password: true });

/**
 * Link existing account (spec §2, issue #11): the provider's address belongs to an account, which is linked only
 * after that account's password. The locked address is the server's pending one; after linking the person is
 * signed in and goes on as after any sign-in (Login's continuation).
 */
export default function LinkAccount() {
  const [params] = useSearchParams();
  const { brand } = useApp();
  const { t } = useTranslation();
  const tk = useT();
  const navigate = useNavigate();
  const fail = useScreenFailure();
  usePageTitle(t("titles.linkAccount"));
  const { state, reload } = usePendingSignIn();
  const [notice, setNotice] = useState<{ key: string } | { blocked: true }>();
  const pending = state.status === "ready" ? state.pending : undefined;
  const shown = pending ?? hintFrom(params);
  const returnTo = pending ? (pending.returnTo ?? null) : params.get("return_to");
  const continuation = useContinuation(returnTo);
  const form = useForm(Form);
  const { errors, isSubmitting } = form.formState;
  const password = form.watch("password") ?? "";

  // The server's answer decides: a new person's answer belongs on social registration.
  useEffect(() => {
    if (pending?.kind === "register") navigate(pendingUrl(pending), { replace: true });
  }, [pending, navigate]);

  const onSubmit = form.handleSubmit(async ({ password }) => {
    setNotice(undefined);
    if (!pending) return;
    let answer: AnswerOf<typeof api.socialLink>;
    try {
      answer = await gateway().call(api.socialLink, {
        body: { email: pending.email, password, returnTo: returnTo ?? undefined },
      });
    } catch (error) {
      if (!(error instanceof ApiError))
        return isScreenFailure(error) ? fail(error) : setNotice({ key: "network.unexpected" });
      if (error.code === "invalid_authentication")
        return form.setError("password", { message: "errors.invalid_authentication" }, { shouldFocus: true });
      if (error.code === "social_invalid_authentication") return void (await reload());
      if (error.code === "user_temporarily_blocked") return setNotice({ blocked: true });
      if (!applyFieldErrors(error, (field, message) => form.setError(field as "password", { message })))
        setNotice({ key: `errors.${error.code}` });
      return;
    }
    continuation.follow(answer.next);
  });

  if (state.status === "gone") return <SignInExpired returnTo={returnTo} focus={form.formState.isSubmitted} />;
  if (!shown || continuation.redirecting) {
    return (
      <Layout>
        <Spinner label={t("app.loading")} />
      </Layout>
    );
  }

  const recover = routeUrl("PASSWORD_RECOVER", { return_to: returnTo ?? undefined });
  const platform = pending?.platform ?? shown.platform;
  return (
    <Layout>
      <h1>{t("linkAccount.heading")}</h1>
      {platform ? (
        <p>{t("linkAccount.intro", { platform: SOCIAL_PLATFORM_NAMES[platform], brand: brand.name })}</p>
      ) : null}
      {notice && "key" in notice ? <Alert kind="error">{tk(notice.key)}</Alert> : null}
      {notice && "blocked" in notice ? (
        <Alert kind="error">
          {/* The message names "Forgot your password?": those words are the link (as on sign-in). */}
          <p>
            {tagged(t("login.blocked"), "recover", (words) => (
              <Link to={recover}>{words}</Link>
            ))}
          </p>
        </Alert>
      ) : null}
      <form onSubmit={onSubmit} noValidate>
        <Field label={t("linkAccount.email")} type="email" autoComplete="username" value={shown.email} readOnly />
        <PasswordField
          label={t("linkAccount.password", { brand: brand.name })}
          autoComplete="current-password"
          error={errors.password?.message}
          value={password}
          {...form.register("password")}
        />
        <div className={styles.links}>
          <Link to={recover}>{t("login.forgotPassword")}</Link>
        </div>
        <div className={styles.actions}>
          <Button type="submit" disabled={isSubmitting || !pending}>
            {t("linkAccount.submit")}
          </Button>
          {/* Spec §2: Back goes to the previous page. */}
          <Button variant="link" onClick={() => navigate(-1)}>
            {t("linkAccount.back")}
          </Button>
        </div>
      </form>
    </Layout>
  );
}
