import { api } from "@gatehouse/contract";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { errorKey, gateway, isScreenFailure } from "../../api/index.ts";
import { useApp } from "../../app/context.tsx";
import { useScreenFailure } from "../../app/failure.tsx";
import { Layout } from "../../app/Layout.tsx";
import { Navigate, useLocation, useSearchParams } from "../../app/routing.tsx";
import { usePageTitle } from "../../app/title.ts";
import { Alert } from "../../ui/Alert.tsx";
import { Button } from "../../ui/Button.tsx";
import { useT } from "../../ui/useT.ts";
import { REGISTERED_EMAIL_KEY } from "./registered.ts";

type Resend = { state: "idle" } | { state: "loading" } | { state: "success" } | { state: "error"; code: string };

/** Spec §2 "Registration complete" and §4: the address the mail went to, and a resend with its four states. */
export default function RegisterComplete() {
  const location = useLocation();
  const [params] = useSearchParams();
  const { brand } = useApp();
  const { t } = useTranslation();
  const tk = useT();
  const fail = useScreenFailure();
  const [resend, setResend] = useState<Resend>({ state: "idle" });
  usePageTitle(t("titles.signUpComplete"));
  const email = (location.state as { email?: string } | null)?.email ?? sessionStorage.getItem(REGISTERED_EMAIL_KEY);

  // Spec §4: without a successful registration this page sends the visitor to sign-in.
  if (!email) return <Navigate to="/" replace />;

  const send = async () => {
    setResend({ state: "loading" });
    try {
      await gateway().call(api.resendActivation, { body: { email, returnTo: params.get("return_to") ?? undefined } });
      setResend({ state: "success" });
    } catch (error) {
      if (isScreenFailure(error)) return fail(error);
      setResend({ state: "error", code: errorKey(error) });
    }
  };

  return (
    <Layout>
      <h1>{t("registerComplete.heading")}</h1>
      <p>{t("registerComplete.body", { email })}</p>
      <p>{t("registerComplete.spam")}</p>
      {resend.state === "success" ? (
        <Alert kind="success">
          <p>{t("login.resendSuccess", { email })}</p>
          <p>
            {t("registerComplete.support")} <a href={brand.links.support}>{t("registerComplete.contactSupport")}</a>
          </p>
        </Alert>
      ) : null}
      {resend.state === "error" ? <Alert kind="error">{tk(resend.code)}</Alert> : null}
      <p>{t("registerComplete.notReceived")}</p>
      <Button variant="secondary" onClick={() => void send()} disabled={resend.state === "loading"}>
        {resend.state === "loading" ? t("registerComplete.sending") : t("registerComplete.resend")}
      </Button>
    </Layout>
  );
}
