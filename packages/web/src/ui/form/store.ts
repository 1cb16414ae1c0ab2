import type { z } from "zod/mini";
import {
  copyValues,
  type FieldElement,
  type FieldError,
  type FieldErrors,
  type FieldPath,
  type FieldValue,
  firstInDocumentOrder,
  getPath,
  readElement,
  setPath,
  type ValidationEvent,
  validatesOn,
  validateValues,
  writeElement,
} from "./rules.ts";

type FieldEvent = { target: FieldElement };
type FieldOptions = { onChange?: (event: FieldEvent) => void; onBlur?: (event: FieldEvent) => void };
/** What the screens read of a form's state. */
export type FormState<In> = {
  errors: Partial<Record<FieldPath<In>, FieldError>>;
  isSubmitting: boolean;
  isSubmitted: boolean;
  /** Some field differs from the value it started with (or was last reset to). */
  isDirty: boolean;
};

/**
 * One form's values, fields and errors, kept outside React (the hook subscribes to it). Inputs stay uncontrolled:
 * a field's element is written when it mounts and when the form sets its value, and read on its own events.
 */
export function createFormStore<S extends z.ZodMiniType>(schema: S, defaultValues: Partial<z.input<S>> = {}) {
  type In = z.input<S>;
  type Name = FieldPath<In>;
  let values = copyValues(defaultValues) as Record<string, unknown>;
  let defaults = copyValues(defaultValues) as Record<string, unknown>;
  let errors: FieldErrors = {};
  /** Fields validated on a blur after being typed in: they follow every change from then on. */
  const touched = new Set<string>();
  /** Fields the person typed in (a change event), so that passing through an empty one is not an error. */
  const typed = new Set<string>();
  let submitted = false;
  let submitting = false;
  const elements = new Map<string, FieldElement>();
  const refs = new Map<string, (element: FieldElement | null) => void>();
  const listeners = new Set<() => void>();
  let version = 0;

  const changed = () => {
    version += 1;
    for (const listener of listeners) listener();
  };
  const validate = () => validateValues<z.output<S>>((input) => schema.safeParse(input), values);
  /** Re-validates the named fields only; the others keep their errors (server errors included). */
  const updateErrors = (names: readonly string[]) => {
    const result = validate();
    const found = result.ok ? {} : result.errors;
    errors = { ...errors };
    for (const name of names) {
      const error = found[name];
      if (error) errors[name] = error;
      else delete errors[name];
    }
    changed();
    return names.every((name) => !found[name]);
  };
  const valueAt = <P extends Name>(name: P) => getPath(values, name) as FieldValue<In, P>;
  const focusFirstError = () => {
    const invalid = [...elements].filter(([name, element]) => errors[name] && element.isConnected);
    firstInDocumentOrder(invalid.map(([, element]) => element))?.focus();
  };

  /** A field's own ref: stable per name, so React attaches it once per element. */
  const refFor = (name: string) => {
    let ref = refs.get(name);
    if (!ref) {
      ref = (element) => {
        if (!element) return void elements.delete(name);
        elements.set(name, element);
        // A value the form already has (a default, a reset, an earlier step's input) shows; otherwise the
        // element's own value becomes the field's starting value.
        if (getPath(values, name) === undefined) {
          setPath(values, name, readElement(element));
          if (getPath(defaults, name) === undefined) setPath(defaults, name, readElement(element));
        } else writeElement(element, getPath(values, name));
      };
      refs.set(name, ref);
    }
    return ref;
  };
  const onFieldEvent = (name: string, event: ValidationEvent, target: FieldElement, options: FieldOptions) => {
    // A field showing an error (the server's, say) follows its changes, so the error goes as soon as it is mended.
    const wasTouched = touched.has(name) || errors[name] !== undefined;
    setPath(values, name, readElement(target));
    if (event === "blur") {
      options.onBlur?.({ target });
      if (typed.has(name)) touched.add(name);
    } else {
      typed.add(name);
      options.onChange?.({ target });
    }
    if (validatesOn(event, wasTouched, submitted, typed.has(name))) updateErrors([name]);
    else changed();
  };

  const form = {
    /** The props that tie an input, select or checkbox to the field: name, ref, onChange, onBlur. */
    register(name: Name, options: FieldOptions = {}) {
      return {
        name,
        ref: refFor(name),
        onChange: (event: FieldEvent) => onFieldEvent(name, "change", event.target, options),
        onBlur: (event: FieldEvent) => onFieldEvent(name, "blur", event.target, options),
      };
    },
    /** Validates the whole form; the handler gets the PARSED values, else the first invalid field takes focus. */
    handleSubmit(onValid: (values: z.output<S>) => unknown) {
      return async (event?: { preventDefault(): void }) => {
        event?.preventDefault();
        submitting = true;
        changed();
        const result = validate();
        errors = result.ok ? {} : result.errors;
        try {
          if (result.ok) await onValid(result.data);
          else focusFirstError();
        } finally {
          submitting = false;
          submitted = true;
          changed();
        }
      };
    },
    /** Validates the named fields now (as on a blur); true when none of them has an error. */
    trigger(names: Name | readonly Name[]): Promise<boolean> {
      return Promise.resolve(updateErrors(typeof names === "string" ? [names] : names));
    },
    /** Puts an error on a field, e.g. the server's (api/errors.ts `applyFieldErrors`). */
    setError(name: Name, error: FieldError, options: { shouldFocus?: boolean } = {}) {
      errors = { ...errors, [name]: error };
      changed();
      if (options.shouldFocus) elements.get(name)?.focus();
    },
    getValues: valueAt,
    /** The current value; the screen renders again on every change, so it stays current. */
    watch: valueAt,
    /** Sets a value and shows it, also when the form had it already (a select whose options came in late). */
    setValue<P extends Name>(name: P, value: FieldValue<In, P>) {
      const element = elements.get(name);
      if (element) writeElement(element, value);
      if (getPath(values, name) === value) return;
      setPath(values, name, value);
      changed();
    },
    /** New starting values (e.g. loaded or just saved): the form is clean, untouched and not yet submitted. */
    reset(next: Partial<In>) {
      values = copyValues(next) as Record<string, unknown>;
      defaults = copyValues(next) as Record<string, unknown>;
      for (const [name, element] of elements) writeElement(element, getPath(values, name));
      errors = {};
      touched.clear();
      typed.clear();
      submitted = false;
      changed();
    },
    get formState(): FormState<In> {
      const isDirty = [...refs.keys()].some((name) => getPath(values, name) !== getPath(defaults, name));
      return { errors: errors as FormState<In>["errors"], isSubmitting: submitting, isSubmitted: submitted, isDirty };
    },
  };
  const subscribe = (listener: () => void) => {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  };
  return { form, subscribe, version: () => version };
}

export type FormApi<S extends z.ZodMiniType> = ReturnType<typeof createFormStore<S>>["form"];
