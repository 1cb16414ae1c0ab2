import { api, ResendActivationBody } from "@gatehouse/contract";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { z } from "zod/mini";
import { errorKey, gateway, isScreenFailure } from "../../api/index.ts";
import { useScreenFailure } from "../../app/failure.tsx";
import { Alert } from "../../ui/Alert.tsx";
import { Button } from "../../ui/Button.tsx";
import { Field } from "../../ui/Field.tsx";
import { useForm } from "../../ui/form/useForm.ts";
import { useT } from "../../ui/useT.ts";

const Form = z.pick(ResendActivationBody, { email: true });

/**
 * The way forward from an activation link that cannot be used: ask for a fresh one by address. The gateway
 * answers the same for every address (no account enumeration), so the confirmation says "if".
 */
export function ResendActivation({ returnTo }: { returnTo?: string | undefined }) {
  const { t } = useTranslation();
  const tk = useT();
  const fail = useScreenFailure();
  const [sentTo, setSentTo] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const form = useForm(Form);
  const { errors, isSubmitting } = form.formState;

  const onSubmit = form.handleSubmit(async ({ email }) => {
    setNotice(undefined);
    try {
      await gateway().call(api.resendActivation, { body: { email, returnTo } });
      setSentTo(email);
    } catch (error) {
      if (isScreenFailure(error)) return fail(error);
      setNotice(errorKey(error));
    }
  });

  if (sentTo) return <Alert kind="success">{t("activate.resendSent", { email: sentTo })}</Alert>;
  return (
    <form onSubmit={onSubmit} noValidate>
      <p>{t("activate.resendIntro")}</p>
      {notice ? <Alert kind="error">{tk(notice)}</Alert> : null}
      <Field
        label={t("register.email")}
        type="email"
        autoComplete="email"
        error={errors.email?.message}
        {...form.register("email")}
      />
      <Button type="submit" variant="secondary" disabled={isSubmitting}>
        {t("login.resendActivation")}
      </Button>
    </form>
  );
}
