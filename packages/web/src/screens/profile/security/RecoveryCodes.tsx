import { api } from "@gatehouse/contract";
import { useEffect, useId, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { errorKey, gateway, isScreenFailure } from "../../../api/index.ts";
import { useApp } from "../../../app/context.tsx";
import { useScreenFailure } from "../../../app/failure.tsx";
import { Alert } from "../../../ui/Alert.tsx";
import { Button, secondaryButtonClass } from "../../../ui/Button.tsx";
import { useFocusOnChange } from "../../../ui/focus.ts";
import { useT } from "../../../ui/useT.ts";
import { CopyButton } from "./CopyButton.tsx";
import styles from "./Security.module.css";

/** The text file of the codes: a title line naming the brand and the account, then one code a line. */
export function recoveryCodesFile(title: string, codes: readonly string[]): string {
  return `${title}\n\n${codes.join("\n")}\n`;
}

/** A Blob URL of the text, revoked when the codes leave the page (nothing of them lingers in memory longer). */
function useTextUrl(text: string | undefined): string | undefined {
  const url = useMemo(() => (text ? URL.createObjectURL(new Blob([text], { type: "text/plain" })) : undefined), [text]);
  useEffect(() => () => (url ? URL.revokeObjectURL(url) : undefined), [url]);
  return url;
}

/**
 * The recovery codes of "Sign-in and security" (issue #26): shown once, right after they were made (download,
 * copy, "I have saved them"); otherwise how many are left and "Make new codes" while a second factor is on.
 */
export function RecoveryCodes({
  codes,
  left,
  hasFactor,
  email,
  onCodes,
  onSaved,
}: {
  codes: string[] | undefined;
  left: number;
  hasFactor: boolean;
  email: string;
  onCodes: (codes: string[]) => void;
  onSaved: () => void;
}) {
  const { t } = useTranslation();
  const tk = useT();
  const fail = useScreenFailure();
  const { brand } = useApp();
  const headingId = useId();
  const heading = useFocusOnChange(codes);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const file = codes ? recoveryCodesFile(t("security.fileTitle", { brand: brand.name, email }), codes) : undefined;
  const fileUrl = useTextUrl(file);

  const makeNew = async () => {
    if (!window.confirm(t("security.newCodesConfirm"))) return;
    setError(undefined);
    setBusy(true);
    try {
      onCodes((await gateway().call(api.recoveryCodes)).recoveryCodes);
    } catch (failure) {
      if (isScreenFailure(failure)) return fail(failure);
      setError(errorKey(failure));
    } finally {
      setBusy(false);
    }
  };

  if (!codes && !hasFactor) return null;
  return (
    <div className={styles.part}>
      <h3 id={headingId} ref={heading} tabIndex={-1}>
        {t("security.codesHeading")}
      </h3>
      {error ? <Alert kind="error">{tk(error)}</Alert> : null}
      {codes ? (
        <>
          <Alert kind="info">{t("security.codesIntro")}</Alert>
          <ul className={styles.codes} aria-labelledby={headingId}>
            {codes.map((code) => (
              <li key={code}>{code}</li>
            ))}
          </ul>
          <div className={styles.actions}>
            <a className={secondaryButtonClass} href={fileUrl} download={`${brand.id}-recovery-codes.txt`}>
              {t("security.download")}
            </a>
            <CopyButton text={codes.join("\n")} label={t("security.copyCodes")} />
            <Button onClick={onSaved}>{t("security.saved")}</Button>
          </div>
        </>
      ) : (
        <>
          <p>
            {t("security.codesAbout")} {t("security.codesLeft", { count: left })}
          </p>
          <div className={styles.actions}>
            <Button variant="secondary" busy={busy} onClick={() => void makeNew()}>
              {t("security.newCodes")}
            </Button>
          </div>
        </>
      )}
    </div>
  );
}
