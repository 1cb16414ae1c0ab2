import { hasNonLatinLetters, NEW_PASSWORD_CHECKS, REGISTER_PASSWORD_CHECKS } from "@gatehouse/contract";
import { type ReactNode, useState } from "react";
import styles from "./Field.module.css";
import { Field, type FieldProps } from "./Field.tsx";
import { useT } from "./useT.ts";

export interface PasswordFieldProps extends Omit<FieldProps, "type" | "control" | "after"> {
  /** Show the "Your password should contain" checklist and the non-Latin warning. */
  showRules?: boolean;
  /** Which rules the checklist shows: a new password's (reset, set-up, change) or registration's (spec §5). */
  ruleSet?: "new" | "register";
  /** A line under the checklist for what no checklist can tick off (e.g. "not a common password"). */
  rulesNote?: ReactNode;
  value?: string;
}

type Check = { key: string; test: (value: string) => boolean; params?: Record<string, unknown> };
const CHECKS: Record<"new" | "register", readonly Check[]> = {
  new: NEW_PASSWORD_CHECKS,
  register: REGISTER_PASSWORD_CHECKS,
};

/** Password input with a show/hide icon button whose accessible name follows its state. */
export function PasswordField({ showRules, ruleSet = "new", rulesNote, value = "", ...props }: PasswordFieldProps) {
  const t = useT();
  const [visible, setVisible] = useState(false);
  return (
    <Field
      {...props}
      type={visible ? "text" : "password"}
      className={styles.withToggle}
      autoCapitalize="off"
      spellCheck={false}
      after={showRules ? <Rules checks={CHECKS[ruleSet]} note={rulesNote} value={value} /> : null}
      control={(input) => (
        <>
          {input}
          <button
            type="button"
            className={styles.toggle}
            aria-label={t(visible ? "field.hidePassword" : "field.showPassword")}
            title={t(visible ? "field.hidePassword" : "field.showPassword")}
            onClick={() => setVisible((v) => !v)}
          >
            <EyeIcon crossed={visible} />
          </button>
        </>
      )}
    />
  );
}

/** The checklist: each rule met or not, told by colour, by icon and, for screen readers, in words. */
function Rules({ checks, note, value }: { checks: readonly Check[]; note: ReactNode; value: string }) {
  const t = useT();
  return (
    <div>
      <p className={styles.hint}>{t("passwordRules.heading")}</p>
      <ul className={styles.rules}>
        {checks.map((check) => {
          const met = check.test(value);
          return (
            <li key={check.key} data-met={met}>
              <RuleIcon met={met} />
              <span>
                {t(check.key, check.params)}
                <span className="visually-hidden"> ({t(met ? "passwordRules.met" : "passwordRules.notMet")})</span>
              </span>
            </li>
          );
        })}
      </ul>
      {note ? <p className={styles.hint}>{note}</p> : null}
      {hasNonLatinLetters(value) ? (
        <p className={styles.hint} role="status">
          {t("passwordRules.nonLatin")}
        </p>
      ) : null}
    </div>
  );
}

const ICON = { width: 20, height: 20, viewBox: "0 0 24 24", focusable: false } as const;
const STROKE = {
  fill: "none",
  stroke: "currentColor",
  strokeWidth: 2,
  strokeLinecap: "round",
  strokeLinejoin: "round",
} as const;

/** An eye: open while the password is hidden (press to show), crossed out while it shows (press to hide). */
function EyeIcon({ crossed }: { crossed: boolean }) {
  return (
    <svg aria-hidden="true" {...ICON} {...STROKE}>
      <path d="M2 12s3.6-7 10-7 10 7 10 7-3.6 7-10 7S2 12 2 12Z" />
      <circle cx="12" cy="12" r="3" />
      {crossed ? <path d="M3 3l18 18" /> : null}
    </svg>
  );
}

function RuleIcon({ met }: { met: boolean }) {
  return (
    <svg aria-hidden="true" {...ICON} {...STROKE} className={styles.ruleIcon}>
      {met ? <path d="M5 12.5l4.5 4.5L19 7.5" /> : <path d="M7 7l10 10M17 7L7 17" />}
    </svg>
  );
}
