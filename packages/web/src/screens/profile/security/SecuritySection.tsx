import { type AnswerOf, api, routeUrl } from "@gatehouse/contract";
import { useCallback, useEffect, useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { errorKey, gateway, isScreenFailure } from "../../../api/index.ts";
import { useScreenFailure } from "../../../app/failure.tsx";
import { Link } from "../../../app/routing.tsx";
import { Alert } from "../../../ui/Alert.tsx";
import { Button } from "../../../ui/Button.tsx";
import { useT } from "../../../ui/useT.ts";
import { AuthenticatorApp } from "./AuthenticatorApp.tsx";
import { Passkeys } from "./Passkeys.tsx";
import { RecoveryCodes } from "./RecoveryCodes.tsx";
import styles from "./Security.module.css";

export type Security = AnswerOf<typeof api.security>;

/** The demanded section is where the person has to act: it scrolls into view and takes the focus once. */
const headingIntoView = (heading: HTMLHeadingElement | null) => {
  if (!heading || heading.dataset.shown) return;
  heading.dataset.shown = "true";
  heading.scrollIntoView({ block: "start" });
  heading.focus({ preventScroll: true });
};

/**
 * Edit account's "Sign-in and security" (issue #26): the authenticator app, the recovery codes and (helper b's
 * part) the passkeys. Changes need a fresh proof; the gateway client's step-up dialog asks for it when the server
 * says so, so the parts here only make their calls. New recovery codes are shown once, here, until the person says
 * they saved them.
 */
export function SecuritySection({
  email,
  demanded = false,
  onContinue,
}: {
  email: string;
  /** A site asked for a second factor (`setup_second_factor`): the section says so and opens into view. */
  demanded?: boolean;
  /** Where the person goes on once a factor is on and its recovery codes are saved (back to the site's sign-in). */
  onContinue?: () => void;
}) {
  const { t } = useTranslation();
  const tk = useT();
  const fail = useScreenFailure();
  const headingId = useId();
  const [security, setSecurity] = useState<Security>();
  const [error, setError] = useState<string>();
  const [codes, setCodes] = useState<string[]>();

  const reload = useCallback(() => {
    gateway()
      .call(api.security)
      .then(setSecurity, (failure: unknown) =>
        isScreenFailure(failure) ? fail(failure) : setError(errorKey(failure)),
      );
  }, [fail]);
  // Runs again after the retry screen until the answer came (React's Activity re-runs effects).
  useEffect(() => {
    if (!security) reload();
  }, [security, reload]);

  if (!security) return error ? <Alert kind="error">{tk(error)}</Alert> : null;
  const hasFactor = security.totp || security.passkeys.length > 0;
  return (
    <section className={styles.section} aria-labelledby={headingId}>
      <h2 id={headingId} ref={demanded ? headingIntoView : undefined} tabIndex={demanded ? -1 : undefined}>
        {t("security.heading")}
      </h2>
      {demanded ? <Alert kind="info">{t("security.requiredBySite")}</Alert> : null}
      {/* Issue #27: where the person is signed in, the apps with access and the activity, on a page of their own. */}
      <p>
        {t("security.pageAbout")} <Link to={routeUrl("ACCOUNT_SECURITY")}>{t("security.pageLink")}</Link>
      </p>
      <AuthenticatorApp on={security.totp} onChange={reload} onCodes={setCodes} />
      <Passkeys security={security} onChange={reload} onCodes={setCodes} />
      <RecoveryCodes
        codes={codes}
        left={security.recoveryCodesLeft}
        hasFactor={hasFactor}
        email={email}
        onCodes={(made) => {
          setCodes(made);
          reload();
        }}
        onSaved={() => setCodes(undefined)}
      />
      {onContinue && hasFactor && !codes ? <Button onClick={onContinue}>{t("security.continueToSite")}</Button> : null}
    </section>
  );
}
