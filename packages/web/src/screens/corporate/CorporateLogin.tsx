import { api, FederatedLoginBody, loginEmailRule, routeUrl } from "@gatehouse/contract";
import { type MouseEvent, useState } from "react";
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
import { useT } from "../../ui/useT.ts";
import { corporateEmail, forgetCorporateEmail } from "../login/corporate.tsx";
import { PrivacyNotice } from "../register/PrivacyNotice.tsx";
import styles from "./Corporate.module.css";

/**
 * Spec §5 "Corporate login email: same as login email" (its messages), and an address the server can look a company
 * up by (the endpoint's own rule): both rules of the contract, one after the other.
 */
const Form = z.object({ email: z.pipe(loginEmailRule, FederatedLoginBody.shape.email) });

const isPrompt = (value: string | null): value is "login" | "select_account" =>
  value === "login" || value === "select_account";

/**
 * Corporate sign in (spec §2, §8, issue #11): the work address names the company, whose own sign-in page opens
 * with the address as its login hint; the company's answer comes back to the gateway, which signs the person in.
 */
export default function CorporateLogin() {
  const [params] = useSearchParams();
  const returnTo = params.get("return_to") ?? undefined;
  const prompt = params.get("prompt");
  const { brand } = useApp();
  const { t } = useTranslation();
  const tk = useT();
  const navigate = useNavigate();
  const fail = useScreenFailure();
  usePageTitle(t("titles.corporateSignIn"));
  const [notice, setNotice] = useState<string>();
  const [redirecting, setRedirecting] = useState(false);
  // The address typed on the page before (issue #25), from this tab's storage: never from the URL.
  const form = useForm(Form, { defaultValues: { email: corporateEmail() ?? "" } });
  const { errors, isSubmitting } = form.formState;

  const onSubmit = form.handleSubmit(async ({ email }) => {
    setNotice(undefined);
    let redirectTo: string;
    try {
      ({ redirect_to: redirectTo } = await gateway().call(api.federatedLogin, {
        body: { email, origin: returnTo, prompt: isPrompt(prompt) ? prompt : undefined },
      }));
    } catch (error) {
      if (!(error instanceof ApiError)) return isScreenFailure(error) ? fail(error) : setNotice("network.unexpected");
      // Spec §8: no_identity_provider reads "We cannot find a corporate account with that email." on the field.
      if (!applyFieldErrors(error, (_, message) => form.setError("email", { message }, { shouldFocus: true })))
        setNotice(`errors.${error.code}`);
      return;
    }
    setRedirecting(true);
    forgetCorporateEmail();
    window.location.assign(redirectTo);
  });

  const signIn = routeUrl("LOGIN", { return_to: returnTo });
  // Back is the page the person came from (sign-in or registration); opened on its own, it is sign-in.
  const back = (event: MouseEvent) => {
    if (window.history.length <= 1) return;
    event.preventDefault();
    navigate(-1);
  };

  return (
    <Layout>
      <h1>{t("corporateLogin.heading")}</h1>
      <p>{t("corporateLogin.intro")}</p>
      {/* Back from the company's provider where the person chose Cancel (issue #24 §3): a calm notice. */}
      {params.has("cancelled") && !notice ? <Alert kind="info">{t("corporateLogin.cancelled")}</Alert> : null}
      {notice ? <Alert kind="error">{tk(notice)}</Alert> : null}
      <form onSubmit={onSubmit} noValidate>
        <Field
          label={t("corporateLogin.email")}
          type="email"
          inputMode="email"
          autoComplete="email"
          autoCapitalize="off"
          spellCheck={false}
          error={errors.email?.message}
          {...form.register("email")}
        />
        <PrivacyNotice i18nKey="corporateLogin.privacyNotice" brand={brand} className={styles.notice} />
        <Button type="submit" disabled={isSubmitting || redirecting}>
          {t("corporateLogin.submit")}
        </Button>
      </form>
      <p className={styles.back}>
        <Link to={signIn} onClick={back}>
          {t("corporateLogin.back")}
        </Link>
      </p>
    </Layout>
  );
}
