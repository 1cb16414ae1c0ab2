import { type AnswerOf, api, LoginBody, routeUrl } from "@gatehouse/contract";
import { type ReactNode, useState } from "react";
import { useTranslation } from "react-i18next";
import { z } from "zod/mini";
import { ApiError, applyFieldErrors, errorKey, gateway, isScreenFailure } from "../../api/index.ts";
import { useScreenFailure } from "../../app/failure.tsx";
import { Link } from "../../app/routing.tsx";
import { Alert } from "../../ui/Alert.tsx";
import { Button } from "../../ui/Button.tsx";
import { Field } from "../../ui/Field.tsx";
import { useForm } from "../../ui/form/useForm.ts";
import { PasswordField } from "../../ui/PasswordField.tsx";
import { tagged } from "../../ui/tagged.tsx";
import { useT } from "../../ui/useT.ts";
import { CorporateHint, useCorporateHint } from "./corporate.tsx";
import styles from "./Login.module.css";

const Form = z.pick(LoginBody, { email: true, password: true });
type FormInput = { email: string; password: string };

type Notice =
  | { kind: "error"; code: string }
  | { kind: "notActive"; email: string }
  | { kind: "resent"; email: string }
  | { kind: "blocked" };

export interface PasswordSignInOptions {
  returnTo: string | null;
  /** What the e-mail field starts with (a site's login_hint). */
  defaultEmail?: string;
  /** The e-mail is given and cannot be changed here (the trial's sign-in: its own screen changes it). */
  emailLocked?: boolean;
  /** The e-mail field's label when not "Username or email". */
  emailLabel?: string;
  /** More for the sign-in call: a trial's product code and mode (issue #12). */
  extraBody?: Pick<z.input<typeof LoginBody>, "productCode" | "isTrial" | "isEnscapeTrial">;
  /** The call that mails a new activation link to a pending account (the trial's own for a trial). */
  resendEndpoint?: typeof api.resendActivation | typeof api.trialResendActivation;
  /** Where "Forgot your password?" leads; the recovery page with the return address by default. */
  recoverUrl?: string;
  /** Disables the button while the screen is already on its way elsewhere. */
  redirecting: boolean;
  /** Runs before the call; answering true stops the submit (Login: a signed-in visitor is sent on instead). */
  beforeSubmit?: () => Promise<boolean>;
  onSignedIn: (answer: AnswerOf<typeof api.login>) => void;
}

/**
 * The password sign-in of spec §2 "Login" — e-mail, password, forgot-password link, the refusals of §8 (wrong
 * password, not activated with its resend, blocked) — shared by the Login screen and a site's sign-in
 * (SERVICE_LOGIN), so both sign in the same way. Answers the notices and form to render, and whether it is busy.
 */
export function usePasswordSignIn(options: PasswordSignInOptions): {
  view: ReactNode;
  isSubmitting: boolean;
  /** The address in the field now (the corporate way in carries it to its page). */
  typedEmail: () => string | undefined;
} {
  const { returnTo, redirecting } = options;
  const { t } = useTranslation();
  const tk = useT();
  const fail = useScreenFailure();
  const [notice, setNotice] = useState<Notice>();
  const corporateHint = useCorporateHint();
  const form = useForm(Form, { defaultValues: { email: options.defaultEmail ?? "" } });
  const { errors, isSubmitting } = form.formState;
  const password = form.watch("password") ?? "";
  const typedEmail = () => form.getValues("email");
  const recoverUrl = options.recoverUrl ?? routeUrl("PASSWORD_RECOVER", { return_to: returnTo ?? undefined });

  const onSubmit = form.handleSubmit(async (values) => {
    setNotice(undefined);
    if (await options.beforeSubmit?.()) return;
    let answer: AnswerOf<typeof api.login>;
    try {
      // The return address goes with the proof: the server decides where the sign-in goes next (issue #24).
      const body = { ...values, ...options.extraBody, ...(returnTo ? { returnTo } : {}) };
      answer = await gateway().call(api.login, { body });
    } catch (error) {
      if (!(error instanceof ApiError))
        return isScreenFailure(error) ? fail(error) : setNotice({ kind: "error", code: "network.unexpected" });
      if (error.code === "invalid_authentication") {
        form.setError("password", { message: "errors.invalid_authentication" }, { shouldFocus: true });
      } else if (error.code === "user_not_active") {
        setNotice({ kind: "notActive", email: values.email });
      } else if (error.code === "user_temporarily_blocked") {
        setNotice({ kind: "blocked" });
      } else if (!applyFieldErrors(error, (field, message) => form.setError(field as keyof FormInput, { message }))) {
        setNotice({ kind: "error", code: `errors.${error.code}` });
      }
      return;
    }
    options.onSignedIn(answer);
  });

  const resend = async (email: string) => {
    try {
      const endpoint = options.resendEndpoint ?? api.resendActivation;
      await gateway().call(endpoint, { body: { email, returnTo: returnTo ?? undefined } });
      setNotice({ kind: "resent", email });
    } catch (error) {
      if (isScreenFailure(error)) return fail(error);
      setNotice({ kind: "error", code: errorKey(error) });
    }
  };

  const view = (
    <>
      {notice?.kind === "error" ? <Alert kind="error">{tk(notice.code)}</Alert> : null}
      {notice?.kind === "blocked" ? (
        <Alert kind="error">
          {/* The message names "Forgot your password?": those words are the link. */}
          <p>
            {tagged(t("login.blocked"), "recover", (words) => (
              <Link to={recoverUrl}>{words}</Link>
            ))}
          </p>
        </Alert>
      ) : null}
      {notice?.kind === "notActive" ? (
        <Alert kind="error">
          <p>{t("errors.user_not_active")}</p>
          <Button variant="link" onClick={() => void resend(notice.email)}>
            {t("login.resendActivation")}
          </Button>
        </Alert>
      ) : null}
      {notice?.kind === "resent" ? (
        <Alert kind="success">{t("login.resendSuccess", { email: notice.email })}</Alert>
      ) : null}
      <form onSubmit={onSubmit} noValidate>
        <Field
          label={options.emailLabel ?? t("login.email")}
          readOnly={options.emailLocked}
          type="text"
          inputMode="email"
          // Issue #26: passkeys offered in the field's autofill (conditional mediation, screens/login/passkey.tsx).
          autoComplete="username webauthn"
          autoCapitalize="off"
          spellCheck={false}
          error={errors.email?.message}
          {...form.register("email", { onBlur: (e) => corporateHint.check(e.target.value) })}
        />
        {corporateHint.corporate ? <CorporateHint returnTo={returnTo} email={typedEmail} /> : null}
        <PasswordField
          label={t("login.password")}
          autoComplete="current-password"
          error={errors.password?.message}
          value={password}
          {...form.register("password")}
        />
        {/* While blocked, the message above carries "Forgot your password?" as its link: said once on the page. */}
        {notice?.kind === "blocked" ? null : (
          <div className={styles.links}>
            <Link to={recoverUrl}>{t("login.forgotPassword")}</Link>
          </div>
        )}
        <Button type="submit" disabled={isSubmitting || redirecting}>
          {t("login.submit")}
        </Button>
      </form>
    </>
  );
  return { view, isSubmitting, typedEmail };
}
