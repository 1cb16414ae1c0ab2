import type { Catalog } from "@gatehouse/contract";

/** Every dotted key of the English catalog ("login.submit"): a wrong key is a type error. */
export type Key = Leaves<Catalog>;
type Leaves<T, Prefix extends string = ""> = {
  [K in keyof T & string]: T[K] extends string ? `${Prefix}${K}` : Leaves<T[K], `${Prefix}${K}.`>;
}[keyof T & string];

export type Values = Record<string, string | number>;

const PLACEHOLDER = /\{\{\s*(\w+)\s*\}\}/gu;

/** The text at a dotted key, or undefined when the catalog has none. */
export function lookup(catalog: unknown, key: string): string | undefined {
  let node = catalog;
  for (const part of key.split(".")) {
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, part)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return typeof node === "string" ? node : undefined;
}

/**
 * A key's text with its `{{name}}` placeholders filled in: the only feature the catalogs use (no plurals, nesting
 * or context). A missing key shows the key itself rather than nothing; a placeholder without a value stays as
 * written. No HTML escaping: React escapes what it renders.
 */
export function translate(catalog: unknown, key: string, values?: Values): string {
  const text = lookup(catalog, key) ?? key;
  if (!values) return text;
  return text.replace(PLACEHOLDER, (whole, name: string) =>
    Object.hasOwn(values, name) ? String(values[name]) : whole,
  );
}
