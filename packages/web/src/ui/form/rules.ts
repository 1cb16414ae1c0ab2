/**
 * The pure rules of our form hook (issue #9: react-hook-form and its resolvers cost 11.9 KB brotli of the login
 * route): field names and paths, which event validates, the contract's issues as field errors, focus order.
 */

/** A field's error: the i18n key of the first issue the contract's schema reports for it. */
export type FieldError = { message: string; type?: string | undefined };
export type FieldErrors = Record<string, FieldError>;
export type FieldElement = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

type Leaf = string | number | boolean | bigint | Date | null | undefined;
/** Every field's dotted name in a form's input type ("email", "marketingInfo.role"), parents included. */
export type FieldPath<T> = {
  [K in keyof T & string]: NonNullable<T[K]> extends Leaf ? K : K | `${K}.${FieldPath<NonNullable<T[K]>>}`;
}[keyof T & string];
/** The value type at a dotted name. */
export type FieldValue<T, P extends string> = P extends `${infer K}.${infer Rest}`
  ? K extends keyof T
    ? FieldValue<NonNullable<T[K]>, Rest>
    : never
  : P extends keyof T
    ? T[P]
    : never;

/** The value at a dotted name of a nested object, undefined when a step is missing. */
export function getPath(values: unknown, name: string): unknown {
  let at: unknown = values;
  for (const key of name.split(".")) {
    if (at === null || typeof at !== "object") return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/** Sets the value at a dotted name, creating the objects on the way. */
export function setPath(values: Record<string, unknown>, name: string, value: unknown): void {
  const keys = name.split(".");
  const last = keys.pop() ?? name;
  let at = values;
  for (const key of keys) {
    const next = at[key];
    if (next === null || typeof next !== "object") at[key] = {};
    at = at[key] as Record<string, unknown>;
  }
  at[last] = value;
}

/** A plain copy of nested form values, so that the form never shares objects with the screen. */
export function copyValues<T>(values: T): T {
  return structuredClone(values);
}

export type ValidationEvent = "blur" | "change";
/**
 * When a field checks itself (issue #25: validation waits for the person). Before any submit, a field that was
 * typed in is first validated when it loses focus, then on every change; a field only passed through (tabbed
 * over, left empty) shows nothing until the submit. After a submit attempt, every field re-validates on change
 * (and no longer on blur, so a server error stays until the value changes).
 */
export function validatesOn(event: ValidationEvent, touched: boolean, submitted: boolean, typed = true): boolean {
  if (submitted) return event === "change";
  return event === "blur" ? typed : touched;
}

type Issue = { readonly path: readonly PropertyKey[]; readonly message: string; readonly code?: string };
/** The schema's issues by field name (dotted path); a field shows its FIRST issue, as zodResolver did. */
export function issuesToErrors(issues: readonly Issue[]): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of issues) {
    const name = issue.path.map(String).join(".");
    errors[name] ??= { message: issue.message, type: issue.code };
  }
  return errors;
}

/** What validating a whole form gives: the parsed output (transforms applied) or the errors by field. */
export type Validation<Output> = { ok: true; data: Output } | { ok: false; errors: FieldErrors };
type SafeParsing<Output> = { success: true; data: Output } | { success: false; error: { issues: readonly Issue[] } };
/** Runs the contract's schema over the values with `safeParse`, the browser's half of "one schema, three uses". */
export function validateValues<Output>(
  safeParse: (values: unknown) => SafeParsing<Output>,
  values: unknown,
): Validation<Output> {
  const result = safeParse(values);
  return result.success ? { ok: true, data: result.data } : { ok: false, errors: issuesToErrors(result.error.issues) };
}

/** The DOM's "following" bit of compareDocumentPosition. */
const DOCUMENT_POSITION_FOLLOWING = 4;
/** The element that comes first in the page, e.g. the first invalid field to focus after a submit. */
export function firstInDocumentOrder<E extends { compareDocumentPosition(other: E): number }>(elements: readonly E[]) {
  let first: E | undefined;
  for (const element of elements) {
    if (!first || element.compareDocumentPosition(first) & DOCUMENT_POSITION_FOLLOWING) first = element;
  }
  return first;
}

/** A field's value as the form keeps it: a checkbox's checked state, otherwise its text. */
export function readElement(element: FieldElement): unknown {
  return element.type === "checkbox" ? (element as HTMLInputElement).checked : element.value;
}

/** Shows a value in a field, touching the DOM only when it differs (so the caret does not jump). */
export function writeElement(element: FieldElement, value: unknown): void {
  if (element.type === "checkbox") {
    const input = element as HTMLInputElement;
    if (input.checked !== Boolean(value)) input.checked = Boolean(value);
    return;
  }
  const text = value === undefined || value === null ? "" : String(value);
  if (element.value !== text) element.value = text;
}
