import type { ComponentPropsWithRef } from "react";
import styles from "./Button.module.css";
import { SpinnerRing } from "./Spinner.tsx";

export interface ButtonProps extends ComponentPropsWithRef<"button"> {
  /** `danger` for actions that destroy something (deleting an account): red in every theme. */
  variant?: "primary" | "secondary" | "link" | "danger";
  /** Waiting for the action it started: disabled, with a turning ring before its (busy) label. */
  busy?: boolean;
}

export function Button({
  variant = "primary",
  busy = false,
  className,
  type = "button",
  children,
  ...props
}: ButtonProps) {
  const classes = [styles.button, variant !== "primary" ? styles[variant] : undefined, className]
    .filter(Boolean)
    .join(" ");
  return (
    <button type={type} className={classes} aria-busy={busy || undefined} {...props} disabled={props.disabled || busy}>
      {busy ? <SpinnerRing /> : null}
      {children}
    </button>
  );
}

/** The class of a primary button, for links that look like one. */
export const buttonClass = styles.button;
export const secondaryButtonClass = `${styles.button} ${styles.secondary}`;
/** A link that starts a destructive action, looking like a danger button. */
export const dangerButtonClass = `${styles.button} ${styles.danger}`;
