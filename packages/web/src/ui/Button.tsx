import type { ComponentPropsWithRef } from "react";
import styles from "./Button.module.css";

export interface ButtonProps extends ComponentPropsWithRef<"button"> {
  variant?: "primary" | "secondary" | "link";
}

export function Button({ variant = "primary", className, type = "button", ...props }: ButtonProps) {
  const classes = [styles.button, variant !== "primary" ? styles[variant] : undefined, className]
    .filter(Boolean)
    .join(" ");
  return <button type={type} className={classes} {...props} />;
}

/** The class of a primary button, for links that look like one. */
export const buttonClass = styles.button;
export const secondaryButtonClass = `${styles.button} ${styles.secondary}`;
