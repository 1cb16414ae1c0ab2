import type { api } from "@gatehouse/contract";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { errorKey, gateway, isScreenFailure } from "../../api/index.ts";
import { useApp } from "../../app/context.tsx";
import { useScreenFailure } from "../../app/failure.tsx";
import { Alert } from "../../ui/Alert.tsx";
import { useT } from "../../ui/useT.ts";

export type Resend = { state: "idle" } | { state: "loading" } | { state: "success" } | { state: "error"; code: string };

/**
 * Spec §4 "Activation resend is idle, loading, success or error": mails a new activation link to the address a
 * sign-up was just made with (the trial's own call for a trial sign-up).
 */
export function useActivationResend(
  endpoint: typeof api.resendActivation | typeof api.trialResendActivation,
  email: string | undefined,
  returnTo: string | undefined,
): { resend: Resend; send: () => Promise<void> } {
  const fail = useScreenFailure();
  const [resend, setResend] = useState<Resend>({ state: "idle" });
  const send = async () => {
    if (!email) return;
    setResend({ state: "loading" });
    try {
      await gateway().call(endpoint, { body: { email, returnTo } });
      setResend({ state: "success" });
    } catch (error) {
      if (isScreenFailure(error)) return fail(error);
      setResend({ state: "error", code: errorKey(error) });
    }
  };
  return { resend, send };
}

/** The resend's outcome (spec §2 "Registration complete"): the success message with a support link, or the error. */
export function ResendOutcome({ resend, email }: { resend: Resend; email: string }) {
  const { brand } = useApp();
  const { t } = useTranslation();
  const tk = useT();
  if (resend.state === "success") {
    return (
      <Alert kind="success">
        <p>{t("login.resendSuccess", { email })}</p>
        <p>
          {t("registerComplete.support")} <a href={brand.links.support}>{t("registerComplete.contactSupport")}</a>
        </p>
      </Alert>
    );
  }
  return resend.state === "error" ? <Alert kind="error">{tk(resend.code)}</Alert> : null;
}
