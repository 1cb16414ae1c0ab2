import { api, routeUrl } from "@gatehouse/contract";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { gateway, isScreenFailure } from "../../api/index.ts";
import { useScreenFailure } from "../../app/failure.tsx";
import { Layout } from "../../app/Layout.tsx";
import { Link } from "../../app/routing.tsx";
import { Alert } from "../../ui/Alert.tsx";
import { buttonClass } from "../../ui/Button.tsx";
import { useFocusOnMount } from "../../ui/focus.ts";
import { Spinner } from "../../ui/Spinner.tsx";
import { useT } from "../../ui/useT.ts";

export type CodeCheck =
  | { state: "validating" }
  /** `survey`: a set-up code of an invitation asks the survey (issue #25). */
  | { state: "valid"; survey: boolean }
  | { state: "invalid"; reason: string; guid?: string | undefined };

/** Spec §4: reset and set-up first run a validating state on the code, leading to valid or an error. */
export function useCodeCheck(code: string | null): CodeCheck {
  const fail = useScreenFailure();
  const [check, setCheck] = useState<CodeCheck>(
    code ? { state: "validating" } : { state: "invalid", reason: "errors.code_invalid" },
  );
  useEffect(() => {
    if (!code) return;
    gateway()
      .call(api.recoverStatus, { params: { code } })
      .then(
        ({ status, guid, survey }) =>
          setCheck(
            status === "valid"
              ? { state: "valid", survey: survey ?? false }
              : { state: "invalid", reason: `errors.code_${status}`, guid },
          ),
        (error: unknown) =>
          isScreenFailure(error) ? fail(error) : setCheck({ state: "invalid", reason: "errors.code_invalid" }),
      );
  }, [code, fail]);
  return check;
}

/** Spec §2: "LOADING..." while the code is checked. */
export function CodeValidating() {
  const { t } = useTranslation();
  return (
    <Layout>
      <Spinner label={t("reset.loading")} />
    </Layout>
  );
}

/**
 * A code that cannot be used: the reason, its reference (spec §2), and a way to a new link — recovery mails a
 * reset link to an active account and a fresh set-up link to an invited one. `takeFocus` when it replaces a form
 * the user just submitted, so focus lands on its heading instead of the page (WCAG 2.4.3).
 */
export function CodeProblem({
  reason,
  guid,
  returnTo,
  takeFocus,
}: {
  reason: string;
  guid?: string | undefined;
  returnTo?: string | undefined;
  takeFocus?: boolean;
}) {
  const { t } = useTranslation();
  const tk = useT();
  const heading = useFocusOnMount(Boolean(takeFocus));
  return (
    <Layout>
      <h1 ref={heading} tabIndex={-1}>
        {t("reset.invalidHeading")}
      </h1>
      <Alert kind="error">
        <p>{tk(reason)}</p>
        {guid ? <p>{t("app.ref", { id: guid })}</p> : null}
      </Alert>
      <Link className={buttonClass} to={routeUrl("PASSWORD_RECOVER", { return_to: returnTo })}>
        {t("reset.requestNew")}
      </Link>
      <p>
        <Link to={routeUrl("LOGIN", { return_to: returnTo })}>{t("app.backToSignIn")}</Link>
      </p>
    </Layout>
  );
}
