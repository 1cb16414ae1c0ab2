import { hasNonLatinLetters, NEW_PASSWORD_CHECKS } from "@gatehouse/contract";
import { useState } from "react";
import styles from "./Field.module.css";
import { Field, type FieldProps } from "./Field.tsx";
import { useT } from "./useT.ts";

export interface PasswordFieldProps extends Omit<FieldProps, "type" | "control" | "after"> {
  /** Show the "Your password should contain" checklist and the non-Latin warning (new passwords). */
  showRules?: boolean;
  value?: string;
}

/** Password input with a show/hide toggle that keeps its accessible name in step with its state. */
export function PasswordField({ showRules, value = "", ...props }: PasswordFieldProps) {
  const t = useT();
  const [visible, setVisible] = useState(false);
  const rules = showRules ? (
    <div>
      <p className={styles.hint}>{t("passwordRules.heading")}</p>
      <ul className={styles.rules}>
        {NEW_PASSWORD_CHECKS.map((check) => {
          const met = check.test(value);
          return (
            <li key={check.key} data-met={met}>
              {t(check.key)}
              <span className="visually-hidden"> ({t(met ? "passwordRules.met" : "passwordRules.notMet")})</span>
            </li>
          );
        })}
      </ul>
      {hasNonLatinLetters(value) ? (
        <p className={styles.hint} role="status">
          {t("passwordRules.nonLatin")}
        </p>
      ) : null}
    </div>
  ) : undefined;
  return (
    <Field
      {...props}
      type={visible ? "text" : "password"}
      className={styles.withToggle}
      autoCapitalize="off"
      spellCheck={false}
      after={rules}
      control={(input) => (
        <>
          {input}
          <button type="button" className={styles.toggle} onClick={() => setVisible((v) => !v)}>
            {t(visible ? "field.hidePassword" : "field.showPassword")}
          </button>
        </>
      )}
    />
  );
}
