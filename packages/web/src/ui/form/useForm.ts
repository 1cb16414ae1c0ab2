import { useState, useSyncExternalStore } from "react";
import type { z } from "zod/mini";
import { createFormStore, type FormApi } from "./store.ts";

export type { FieldError, FieldPath } from "./rules.ts";
export type { FormApi, FormState } from "./store.ts";

/**
 * A form validated with the contract's zod/mini schema (issue #9: our own few lines instead of react-hook-form
 * and @hookform/resolvers, docs/decisions.md "Forms library"). The returned object is the same on every render;
 * the screen renders again whenever a value, an error or the submitting state changes.
 */
export function useForm<S extends z.ZodMiniType>(
  schema: S,
  options: { defaultValues?: Partial<z.input<S>> } = {},
): FormApi<S> {
  const [store] = useState(() => createFormStore(schema, options.defaultValues));
  useSyncExternalStore(store.subscribe, store.version, store.version);
  return store.form;
}
