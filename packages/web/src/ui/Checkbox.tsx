import { type ComponentPropsWithRef, useId } from "react";
import styles from "./Choice.module.css";

export function Checkbox({ label, ...input }: ComponentPropsWithRef<"input"> & { label: string }) {
  const id = useId();
  return (
    <div className={styles.checkbox}>
      <input id={id} type="checkbox" {...input} />
      <label htmlFor={id}>{label}</label>
    </div>
  );
}
