import { type ComponentPropsWithRef, type ReactNode, useId } from "react";
import styles from "./Field.module.css";
import { useT } from "./useT.ts";

export interface FieldProps extends ComponentPropsWithRef<"input"> {
  label: string;
  /** An i18n key or a ready text for the error under the field. */
  error?: string | undefined;
  hint?: ReactNode;
  /** Extra content under the input, e.g. a password checklist. */
  after?: ReactNode;
  control?: (input: ReactNode) => ReactNode;
}

/** A labelled input: the label names it for screen readers, the error is tied to it by aria-describedby. */
export function Field({ label, error, hint, after, control, className, ...input }: FieldProps) {
  const id = useId();
  const t = useT();
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const describedBy = [error ? errorId : undefined, hint ? hintId : undefined].filter(Boolean).join(" ") || undefined;
  const element = (
    <input
      id={id}
      className={[styles.input, className].filter(Boolean).join(" ")}
      aria-invalid={error ? true : undefined}
      aria-describedby={describedBy}
      {...input}
    />
  );
  return (
    <div className={styles.field}>
      <label className={styles.label} htmlFor={id}>
        {label}
      </label>
      <div className={styles.control}>{control ? control(element) : element}</div>
      {error ? (
        <p id={errorId} className={styles.error}>
          {t(error)}
        </p>
      ) : null}
      {hint ? (
        <div id={hintId} className={styles.hint}>
          {hint}
        </div>
      ) : null}
      {after}
    </div>
  );
}
