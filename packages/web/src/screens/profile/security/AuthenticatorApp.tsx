import { api, TotpConfirmBody } from "@gatehouse/contract";
import { useId, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { renderSVG } from "uqr";
import { ApiError, applyFieldErrors, errorKey, gateway, isScreenFailure } from "../../../api/index.ts";
import { useScreenFailure } from "../../../app/failure.tsx";
import { Alert } from "../../../ui/Alert.tsx";
import { Button } from "../../../ui/Button.tsx";
import { useConfirmedCall } from "../../../ui/confirmed.ts";
import { Field } from "../../../ui/Field.tsx";
import { useFocusOnChange } from "../../../ui/focus.ts";
import { useForm } from "../../../ui/form/useForm.ts";
import { useT } from "../../../ui/useT.ts";
import { CopyButton } from "./CopyButton.tsx";
import styles from "./Security.module.css";

type Setup = { secret: string; uri: string };
type Message = { kind: "error" | "success"; key: string };

/** The secret as people type it from the screen: groups of four (the app ignores the spaces). */
export function groupedSecret(secret: string): string {
  return secret.match(/.{1,4}/gu)?.join(" ") ?? secret;
}

/** The QR code of the otpauth:// address, drawn here (issue #26: no third-party request) as an SVG data URL. */
function qrDataUrl(uri: string): string {
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(renderSVG(uri, { border: 2, pixelSize: 4 }))}`;
}

/**
 * The authenticator app (TOTP, RFC 6238) of "Sign-in and security": off → Turn on shows the QR code and the setup
 * key; a code from the app confirms it (and the first factor's recovery codes come with the answer). On → Turn off.
 */
export function AuthenticatorApp({
  on,
  onChange,
  onCodes,
}: {
  on: boolean;
  onChange: () => void;
  onCodes: (codes: string[]) => void;
}) {
  const { t } = useTranslation();
  const tk = useT();
  const fail = useScreenFailure();
  const headingId = useId();
  const [setup, setSetup] = useState<Setup>();
  const [busy, setBusy] = useState(false);
  const confirmed = useConfirmedCall();
  const [message, setMessage] = useState<Message>();
  const heading = useFocusOnChange(setup === undefined ? on : setup);
  const form = useForm(TotpConfirmBody);
  const { errors, isSubmitting } = form.formState;
  const qr = useMemo(() => (setup ? qrDataUrl(setup.uri) : undefined), [setup]);

  const failed = (failure: unknown) => {
    if (isScreenFailure(failure)) return fail(failure);
    setMessage({ kind: "error", key: errorKey(failure) });
  };

  const start = async () => {
    setMessage(undefined);
    setBusy(true);
    try {
      setSetup(await gateway().call(api.totpStart));
    } catch (failure) {
      failed(failure);
    } finally {
      setBusy(false);
    }
  };

  const confirm = form.handleSubmit(async ({ code }) => {
    setMessage(undefined);
    try {
      const answer = await gateway().call(api.totpConfirm, { body: { code } });
      setSetup(undefined);
      form.reset({ code: "" });
      setMessage({ kind: "success", key: "security.turnedOn" });
      if (answer.recoveryCodes) onCodes(answer.recoveryCodes);
      onChange();
    } catch (failure) {
      if (isScreenFailure(failure)) return fail(failure);
      if (applyFieldErrors(failure, (_field, key) => form.setError("code", { message: key }, { shouldFocus: true })))
        return;
      // A wrong code is the field's error: the person types the app's next one there.
      if (failure instanceof ApiError && failure.code === "second_factor_invalid")
        return form.setError("code", { message: `errors.${failure.code}` }, { shouldFocus: true });
      failed(failure);
    }
  });

  const turnOff = () =>
    confirmed.run(
      t("security.turnOffConfirm"),
      async () => {
        setMessage(undefined);
        await gateway().call(api.totpRemove);
        setMessage({ kind: "success", key: "security.turnedOff" });
        onChange();
      },
      (key) => setMessage({ kind: "error", key }),
    );

  return (
    <div className={styles.part}>
      <h3 id={headingId} ref={heading} tabIndex={-1}>
        {t("security.appHeading")}
      </h3>
      {message ? <Alert kind={message.kind}>{tk(message.key)}</Alert> : null}
      {setup ? (
        <form onSubmit={confirm} noValidate>
          <p>{t("security.scan")}</p>
          <img className={styles.qr} src={qr} alt={t("security.qrAlt")} />
          <span className={styles.label} id={`${headingId}-key`}>
            {t("security.setupKey")}
          </span>
          <div className={styles.key}>
            <code data-secret={setup.secret}>{groupedSecret(setup.secret)}</code>
            <CopyButton text={setup.secret} label={t("security.copyKey")} />
          </div>
          <Field
            label={t("security.confirmCode")}
            hint={t("security.confirmHint")}
            autoComplete="one-time-code"
            inputMode="numeric"
            error={errors.code?.message}
            {...form.register("code")}
          />
          <div className={styles.actions}>
            <Button type="submit" busy={isSubmitting}>
              {t("security.confirm")}
            </Button>
            <Button variant="secondary" onClick={() => setSetup(undefined)} disabled={isSubmitting}>
              {t("security.cancel")}
            </Button>
          </div>
        </form>
      ) : (
        <>
          <p>{on ? t("security.appOn") : t("security.appOff")}</p>
          <div className={styles.actions}>
            {on ? (
              <Button variant="secondary" busy={confirmed.busy} onClick={() => void turnOff()}>
                {t("security.turnOff")}
              </Button>
            ) : (
              <Button busy={busy} onClick={() => void start()}>
                {t("security.turnOn")}
              </Button>
            )}
          </div>
        </>
      )}
    </div>
  );
}
