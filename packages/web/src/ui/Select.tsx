import { type ComponentPropsWithRef, useId } from "react";
import fieldStyles from "./Field.module.css";
import { useT } from "./useT.ts";

export interface SelectProps extends ComponentPropsWithRef<"select"> {
  label: string;
  error?: string | undefined;
  placeholder?: string;
  options: readonly { value: string; label: string }[];
}

/** A labelled select whose first option is an empty prompt (spec §3 "Each list starts with an empty Select option"). */
export function Select({ label, error, placeholder, options, ...select }: SelectProps) {
  const id = useId();
  const t = useT();
  return (
    <div className={fieldStyles.field}>
      <label className={fieldStyles.label} htmlFor={id}>
        {label}
      </label>
      <select
        id={id}
        className={fieldStyles.input}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        {...select}
      >
        <option value="">{placeholder ?? ""}</option>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      {error ? (
        <p id={`${id}-error`} className={fieldStyles.error}>
          {t(error)}
        </p>
      ) : null}
    </div>
  );
}
