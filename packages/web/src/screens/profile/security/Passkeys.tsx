import { type AnswerOf, api, PasskeyRenameBody } from "@gatehouse/contract";
import type { PublicKeyCredentialCreationOptionsJSON } from "@simplewebauthn/browser";
import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { ApiError, applyFieldErrors, errorKey, gateway, isScreenFailure } from "../../../api/index.ts";
import { useScreenFailure } from "../../../app/failure.tsx";
import { Alert } from "../../../ui/Alert.tsx";
import { Button } from "../../../ui/Button.tsx";
import { useConfirmedCall } from "../../../ui/confirmed.ts";
import { Field } from "../../../ui/Field.tsx";
import { useForm } from "../../../ui/form/useForm.ts";
import { useT } from "../../../ui/useT.ts";
import styles from "./Passkeys.module.css";
import sectionStyles from "./Security.module.css";

type Security = AnswerOf<typeof api.security>;
type Passkey = Security["passkeys"][number];
type Message = { kind: "error" | "success"; key: string };

/** The person closed the browser's passkey dialog (or it timed out): nothing was made. */
const cancelled = (error: unknown) => {
  const name = (error as { name?: string } | null)?.name;
  return name === "NotAllowedError" || name === "AbortError";
};

/**
 * The passkeys of "Sign-in and security" (issue #26): each with its name, when it was added and last used, and a
 * "Synced" badge when the password manager syncs it; Add a passkey (the browser's own dialog, the WebAuthn library
 * loaded only then), rename in place, remove after a confirmation. Adding and removing need a fresh proof: the
 * gateway client's step-up dialog asks for it when the server says so.
 */
export function Passkeys({
  security,
  onChange,
  onCodes,
}: {
  security: Security;
  onChange: () => void;
  onCodes: (codes: string[]) => void;
}) {
  const { t, i18n } = useTranslation();
  const tk = useT();
  const fail = useScreenFailure();
  const headingId = useId();
  const [busy, setBusy] = useState(false);
  const confirmed = useConfirmedCall();
  const [renaming, setRenaming] = useState<string>();
  const [message, setMessage] = useState<Message>();
  const date = (at: number) => new Intl.DateTimeFormat(i18n.language, { dateStyle: "medium" }).format(at);

  const failed = (failure: unknown, fallback = errorKey(failure)) => {
    if (isScreenFailure(failure)) return fail(failure);
    setMessage({ kind: "error", key: fallback });
  };

  const add = async () => {
    setMessage(undefined);
    setBusy(true);
    try {
      const options = await gateway().call(api.passkeyRegistrationOptions);
      const { startRegistration } = await import("@simplewebauthn/browser");
      const response = await startRegistration({ optionsJSON: options as PublicKeyCredentialCreationOptionsJSON });
      const answer = await gateway().call(api.passkeyRegister, { body: { response } as never });
      setMessage({ kind: "success", key: "security.passkeys.added" });
      if (answer.recoveryCodes) onCodes(answer.recoveryCodes);
      onChange();
    } catch (failure) {
      if (cancelled(failure)) return setMessage({ kind: "error", key: "security.passkeys.notAdded" });
      failed(failure, failure instanceof ApiError ? `errors.${failure.code}` : "passkey.failed");
    } finally {
      setBusy(false);
    }
  };

  const remove = (passkey: Passkey) =>
    confirmed.run(
      t("security.passkeys.removeConfirm", { name: passkey.name }),
      async () => {
        setMessage(undefined);
        await gateway().call(api.passkeyRemove, { params: { id: passkey.id } });
        setMessage({ kind: "success", key: "security.passkeys.removed" });
        onChange();
      },
      (key) => setMessage({ kind: "error", key }),
    );

  return (
    <div className={sectionStyles.part}>
      <h3 id={headingId}>{t("security.passkeys.heading")}</h3>
      {message ? <Alert kind={message.kind}>{tk(message.key)}</Alert> : null}
      <p>{t("security.passkeys.intro")}</p>
      {security.passkeys.length === 0 ? (
        <p>{t("security.passkeys.none")}</p>
      ) : (
        <ul className={styles.list} aria-labelledby={headingId}>
          {security.passkeys.map((passkey) => (
            <li key={passkey.id} className={styles.item}>
              <span className={styles.about}>
                <span className={styles.name}>
                  {passkey.name}
                  {passkey.backedUp ? (
                    <span className={styles.badge} title={t("security.passkeys.syncedHint")}>
                      {t("security.passkeys.synced")}
                    </span>
                  ) : null}
                </span>
                <span className={styles.times}>
                  {t("security.passkeys.created", { date: date(passkey.createdAt) })}
                  {" · "}
                  {passkey.lastUsedAt === null
                    ? t("security.passkeys.neverUsed")
                    : t("security.passkeys.lastUsed", { date: date(passkey.lastUsedAt) })}
                </span>
              </span>
              {renaming === passkey.id ? (
                <RenameForm
                  passkey={passkey}
                  onDone={(saved) => {
                    setRenaming(undefined);
                    if (saved) {
                      setMessage({ kind: "success", key: "security.passkeys.renamed" });
                      onChange();
                    }
                  }}
                />
              ) : (
                <span className={styles.buttons}>
                  <Button
                    variant="secondary"
                    aria-label={t("security.passkeys.renameFor", { name: passkey.name })}
                    disabled={busy || confirmed.busy}
                    onClick={() => setRenaming(passkey.id)}
                  >
                    {t("security.passkeys.rename")}
                  </Button>
                  <Button
                    variant="secondary"
                    aria-label={t("security.passkeys.removeFor", { name: passkey.name })}
                    disabled={busy || confirmed.busy}
                    onClick={() => void remove(passkey)}
                  >
                    {t("security.passkeys.remove")}
                  </Button>
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
      <div className={sectionStyles.actions}>
        <Button busy={busy} disabled={confirmed.busy} onClick={() => void add()}>
          {t("security.passkeys.add")}
        </Button>
      </div>
    </div>
  );
}

/** Renaming in place: the name field (focused), Save and Cancel; the server normalises and bounds the name. */
function RenameForm({ passkey, onDone }: { passkey: Passkey; onDone: (saved: boolean) => void }) {
  const { t } = useTranslation();
  const tk = useT();
  const fail = useScreenFailure();
  const form = useForm(PasskeyRenameBody, { defaultValues: { name: passkey.name } });
  const { errors, isSubmitting } = form.formState;
  const [error, setError] = useState<string>();
  const save = form.handleSubmit(async ({ name }) => {
    setError(undefined);
    try {
      await gateway().call(api.passkeyRename, { params: { id: passkey.id }, body: { name } });
      onDone(true);
    } catch (failure) {
      if (isScreenFailure(failure)) return fail(failure);
      if (applyFieldErrors(failure, (_field, key) => form.setError("name", { message: key }, { shouldFocus: true })))
        return;
      setError(errorKey(failure));
    }
  });
  return (
    <form className={styles.rename} onSubmit={save} noValidate>
      {error ? <Alert kind="error">{tk(error)}</Alert> : null}
      <Field label={t("security.passkeys.name")} autoFocus error={errors.name?.message} {...form.register("name")} />
      <span className={styles.buttons}>
        <Button type="submit" busy={isSubmitting}>
          {t("security.passkeys.save")}
        </Button>
        <Button variant="secondary" onClick={() => onDone(false)} disabled={isSubmitting}>
          {t("security.passkeys.cancel")}
        </Button>
      </span>
    </form>
  );
}
