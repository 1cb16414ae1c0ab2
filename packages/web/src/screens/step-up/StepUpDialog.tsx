import { type AnswerOf, api, ReauthenticateBody, routeUrl } from "@gatehouse/contract";
import { type KeyboardEvent, useEffect, useId, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { ApiError, applyFieldErrors, errorKey, gateway, isScreenFailure } from "../../api/index.ts";
import { navigate } from "../../app/routing.tsx";
import { Alert } from "../../ui/Alert.tsx";
import { Button } from "../../ui/Button.tsx";
import { Field } from "../../ui/Field.tsx";
import { useForm } from "../../ui/form/useForm.ts";
import { PasswordField } from "../../ui/PasswordField.tsx";
import { Spinner } from "../../ui/Spinner.tsx";
import { useT } from "../../ui/useT.ts";
import { passkeyStepUp } from "./passkey-step-up.ts";
import styles from "./StepUpDialog.module.css";

type Security = AnswerOf<typeof api.security>;
type Method = "totp" | "recovery_code";
export interface StepUpDialogProps {
  /** true once a fresh proof was recorded (the call goes again), false when the person cancelled. */
  onDone: (confirmed: boolean) => void;
  /** Where the focus goes when the dialog closes: the control that led to it. */
  returnFocus: HTMLElement | null;
}

/** A few frames at most: the screen re-renders its busy control as soon as the call's answer reaches it. */
const FOCUS_FRAMES = 30;

/** Focuses a control once it is enabled again (a busy button is disabled until its call ends). */
function focusWhenEnabled(control: HTMLElement | null, frames = FOCUS_FRAMES): void {
  if (!control?.isConnected || frames === 0) return;
  if ((control as HTMLButtonElement).disabled) requestAnimationFrame(() => focusWhenEnabled(control, frames - 1));
  else control.focus();
}

const FOCUSABLE = "a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea";

/**
 * Keeps Tab inside the dialog (WCAG 2.4.3): a modal <dialog> makes the page inert, but Tab past its last control
 * still leaves for the browser's own toolbar, and a keyboard user would lose the dialog.
 */
function trapTab(event: KeyboardEvent<HTMLDialogElement>): void {
  if (event.key !== "Tab") return;
  const controls = Array.from(event.currentTarget.querySelectorAll<HTMLElement>(FOCUSABLE));
  const first = controls[0];
  const last = controls.at(-1);
  if (!first || !last) return;
  const leaving = event.shiftKey ? document.activeElement === first : document.activeElement === last;
  if (!leaving) return;
  event.preventDefault();
  (event.shiftKey ? last : first).focus();
}

/**
 * What the proof needs: the password where there is one, and a code where the account has a second factor (the
 * authenticator app's, or a recovery code; a passkey's step-up is the passkey part's). Nothing to type that would
 * do (no password and no factor, or a factor with no code to type) means a new sign-in.
 */
export function proofOf(security: Security) {
  const hasFactor = security.totp || security.passkeys.length > 0;
  const code = hasFactor && (security.totp || security.recoveryCodesLeft > 0);
  const signInAgain = hasFactor ? !code : !security.hasPassword;
  return {
    password: security.hasPassword && !signInAgain,
    code,
    firstMethod: (security.totp ? "totp" : "recovery_code") as Method,
    signInAgain,
  };
}

/**
 * "Confirm it's you" (issue #26 step-up): a modal dialog (native <dialog>: the page behind is inert, Escape
 * cancels, focus goes back where it was) asking for the password and, where the account has one, a second
 * factor's code; POST /account/reauthenticate records the fresh proof. ASVS 6.2.x / NIST 800-63B §7.2:
 * sensitive changes need a recent authentication at the account's level.
 */
export function StepUpDialog({ onDone, returnFocus }: StepUpDialogProps) {
  const { t } = useTranslation();
  const tk = useT();
  const headingId = useId();
  const dialog = useRef<HTMLDialogElement>(null);
  const [security, setSecurity] = useState<Security>();
  const [notice, setNotice] = useState<string>();
  const [method, setMethod] = useState<Method>();
  const [leaving, setLeaving] = useState(false);
  const form = useForm(ReauthenticateBody);
  const { errors, isSubmitting } = form.formState;

  // Opened modal once; on the way out, focus returns to the control that led here, a frame later, once its screen
  // took the call's answer (a busy button is enabled again by then).
  useEffect(() => {
    dialog.current?.showModal();
    return () => focusWhenEnabled(returnFocus);
  }, [returnFocus]);

  useEffect(() => {
    gateway()
      .call(api.security)
      .then(setSecurity, (failure: unknown) => setNotice(errorKey(failure)));
  }, []);

  const finish = (confirmed: boolean) => {
    dialog.current?.close();
    onDone(confirmed);
  };

  const proof = security ? proofOf(security) : undefined;
  const chosen = method ?? proof?.firstMethod ?? "totp";

  const submit = form.handleSubmit(async (values) => {
    setNotice(undefined);
    // The schema leaves both optional (which is asked depends on the account); here both are asked.
    const missing = (["password", "code"] as const).filter((field) => proof?.[field] && !values[field]);
    for (const field of missing) form.setError(field, { message: "validation.required" }, { shouldFocus: true });
    if (missing.length > 0) return;
    const body = {
      ...(proof?.password ? { password: values.password } : {}),
      ...(proof?.code ? { method: chosen, code: values.code } : {}),
    };
    try {
      await gateway().call(api.reauthenticate, { body });
      finish(true);
    } catch (failure) {
      if (isScreenFailure(failure) || !(failure instanceof ApiError)) return setNotice(errorKey(failure));
      if (
        applyFieldErrors(failure, (field, message) =>
          form.setError(field as "password" | "code", { message }, { shouldFocus: true }),
        )
      )
        return;
      setNotice(`errors.${failure.code}`);
    }
  });

  // Spec §6's way back: signed out, the sign-in page returns here afterwards with a fresh session.
  const signInAgain = () => {
    setLeaving(true);
    const returnTo = window.location.href;
    const toLogin = () => {
      finish(false);
      navigate(routeUrl("LOGIN", { return_to: returnTo }), { replace: true });
    };
    gateway().call(api.logout, { body: {} }).then(toLogin, toLogin);
  };

  const byApp = chosen === "totp";
  return (
    <dialog
      ref={dialog}
      className={styles.dialog}
      aria-labelledby={headingId}
      onKeyDown={trapTab}
      onCancel={(event) => {
        // Escape: the dialog closes through finish, so the waiting call hears "cancelled".
        event.preventDefault();
        finish(false);
      }}
    >
      <h2 id={headingId}>{t("reauth.heading")}</h2>
      {notice ? <Alert kind="error">{tk(notice)}</Alert> : null}
      {!proof ? (
        notice ? null : (
          <Spinner label={t("app.loading")} />
        )
      ) : proof.signInAgain ? (
        <>
          <p>{t("reauth.signInAgainIntro")}</p>
          <div className={styles.actions}>
            <Button busy={leaving} onClick={signInAgain}>
              {t("reauth.signInAgain")}
            </Button>
            <Button variant="secondary" onClick={() => finish(false)} disabled={leaving}>
              {t("reauth.cancel")}
            </Button>
          </div>
        </>
      ) : (
        <form onSubmit={submit} noValidate>
          <p>{t("reauth.intro")}</p>
          {proof.password ? (
            <PasswordField
              label={t("login.password")}
              autoComplete="current-password"
              error={errors.password?.message}
              {...form.register("password")}
            />
          ) : null}
          {proof.code ? (
            <>
              <Field
                key={chosen}
                label={byApp ? t("secondFactor.code") : t("secondFactor.recoveryCode")}
                autoComplete={byApp ? "one-time-code" : "off"}
                inputMode={byApp ? "numeric" : "text"}
                autoCapitalize="off"
                spellCheck={false}
                error={errors.code?.message}
                {...form.register("code")}
              />
              {security?.totp && security.recoveryCodesLeft > 0 ? (
                <div className={styles.switch}>
                  <Button variant="link" onClick={() => setMethod(byApp ? "recovery_code" : "totp")}>
                    {byApp ? t("secondFactor.useRecovery") : t("secondFactor.useApp")}
                  </Button>
                </div>
              ) : null}
            </>
          ) : null}
          {security?.passkeys.length ? (
            <Button
              variant="secondary"
              onClick={() => void passkeyStepUp().then((key) => (key ? setNotice(key) : finish(true)))}
            >
              {t("passkey.use")}
            </Button>
          ) : null}
          <div className={styles.actions}>
            <Button type="submit" busy={isSubmitting}>
              {t("reauth.confirm")}
            </Button>
            <Button variant="secondary" onClick={() => finish(false)} disabled={isSubmitting}>
              {t("reauth.cancel")}
            </Button>
          </div>
        </form>
      )}
    </dialog>
  );
}
