import { api, RecoverBody } from "@gatehouse/contract";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { z } from "zod/mini";
import { errorKey, gateway, isScreenFailure } from "../../api/index.ts";
import { useScreenFailure } from "../../app/failure.tsx";
import { Link } from "../../app/routing.tsx";
import { Alert } from "../../ui/Alert.tsx";
import { Button, buttonClass } from "../../ui/Button.tsx";
import { Field } from "../../ui/Field.tsx";
import { useFocusOnChange } from "../../ui/focus.ts";
import { useForm } from "../../ui/form/useForm.ts";
import { useT } from "../../ui/useT.ts";
import { CorporateHint, useCorporateHint } from "../login/corporate.tsx";

const Form = z.pick(RecoverBody, { email: true });

/**
 * Forgot password (spec §2): an address, Recover, then the same thank-you whether or not the account exists, with
 * the way back (to sign-in, or the trial's sign-in). Shared by PASSWORD_RECOVER and TRIAL_PASSWORD_RECOVER.
 */
export function RecoverForm({
  returnTo,
  defaultEmail,
  back,
}: {
  returnTo: string | undefined;
  defaultEmail?: string | undefined;
  back: { to: string; label: string };
}) {
  const { t } = useTranslation();
  const tk = useT();
  const fail = useScreenFailure();
  const [sentTo, setSentTo] = useState<string>();
  const heading = useFocusOnChange(sentTo);
  const [notice, setNotice] = useState<string>();
  const corporateHint = useCorporateHint();
  const form = useForm(Form, { defaultValues: { email: defaultEmail ?? "" } });
  const { errors, isSubmitting } = form.formState;

  const onSubmit = form.handleSubmit(async ({ email }) => {
    setNotice(undefined);
    try {
      await gateway().call(api.recover, { body: { email, returnTo } });
      setSentTo(email);
    } catch (error) {
      if (isScreenFailure(error)) return fail(error);
      setNotice(errorKey(error));
    }
  });

  if (sentTo) {
    return (
      <>
        <h1 ref={heading} tabIndex={-1}>
          {t("recover.thanksHeading")}
        </h1>
        <p role="status">{t("recover.thanksBody", { email: sentTo })}</p>
        <Link className={buttonClass} to={back.to}>
          {back.label}
        </Link>
      </>
    );
  }
  return (
    <>
      <h1 ref={heading} tabIndex={-1}>
        {t("recover.heading")}
      </h1>
      <p>{t("recover.intro")}</p>
      {notice ? <Alert kind="error">{tk(notice)}</Alert> : null}
      <form onSubmit={onSubmit} noValidate>
        <Field
          label={t("recover.email")}
          type="email"
          autoComplete="email"
          error={errors.email?.message}
          {...form.register("email", { onBlur: (e) => corporateHint.check(e.target.value) })}
        />
        {corporateHint.corporate ? (
          <CorporateHint returnTo={returnTo ?? null} email={() => form.getValues("email")} />
        ) : null}
        <Button type="submit" disabled={isSubmitting}>
          {t("recover.submit")}
        </Button>
      </form>
      <p>
        <Link to={back.to}>{back.label}</Link>
      </p>
    </>
  );
}
