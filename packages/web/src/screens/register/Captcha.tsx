import { api } from "@gatehouse/contract";
import { useCallback, useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { gateway } from "../../api/index.ts";
import { Button } from "../../ui/Button.tsx";
import { Field } from "../../ui/Field.tsx";

/** The image captcha for visitors located in CN (spec §2): the numbers in a server-drawn image, with a refresh. */
export function Captcha({
  answer,
  onChange,
  error,
  generation,
}: {
  answer: string;
  onChange: (value: { id: string; answer: string }) => void;
  error?: string | undefined;
  generation: number;
}) {
  const { t } = useTranslation();
  const [captcha, setCaptcha] = useState<{ id: string; image: string }>();
  const refresh = useCallback(async () => {
    const next = await gateway().call(api.captcha);
    setCaptcha(next);
    onChange({ id: next.id, answer: "" });
  }, [onChange]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new image whenever the form asks for one.
  useEffect(() => {
    void refresh();
  }, [generation]);
  return (
    <div>
      {captcha ? <img src={captcha.image} alt={t("register.captchaImage")} width={180} height={60} /> : null}
      <Button variant="link" onClick={() => void refresh()}>
        {t("register.captchaRefresh")}
      </Button>
      <Field
        label={t("register.captchaLabel")}
        inputMode="numeric"
        autoComplete="off"
        maxLength={6}
        value={answer}
        error={error}
        onChange={(e) => onChange({ id: captcha?.id ?? "", answer: e.target.value })}
      />
    </div>
  );
}
