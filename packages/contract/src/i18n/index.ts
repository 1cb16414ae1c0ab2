import type { Language } from "../languages.ts";
import en from "./en.json" with { type: "json" };

/** English is the typed source of every catalog (STYLE.md §3): the others must have exactly its keys. */
export type Catalog = typeof en;
export const englishCatalog: Catalog = en;

/** Loads a language's catalog; bundlers split each into its own chunk. */
export async function loadCatalog(language: Language): Promise<Catalog> {
  switch (language) {
    case "en":
      return en;
    case "es":
      return (await import("./es.json", { with: { type: "json" } })).default;
    case "pt":
      return (await import("./pt.json", { with: { type: "json" } })).default;
    case "de":
      return (await import("./de.json", { with: { type: "json" } })).default;
    case "it":
      return (await import("./it.json", { with: { type: "json" } })).default;
    case "fr":
      return (await import("./fr.json", { with: { type: "json" } })).default;
    case "cn":
      return (await import("./cn.json", { with: { type: "json" } })).default;
    case "kr":
      return (await import("./kr.json", { with: { type: "json" } })).default;
    case "jp":
      return (await import("./jp.json", { with: { type: "json" } })).default;
  }
}

/** Looks up a dotted key such as `errors.user_disabled` in a catalog; undefined when absent. */
export function lookup(catalog: Catalog, key: string): string | undefined {
  let node: unknown = catalog;
  for (const part of key.split(".")) {
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, part)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return typeof node === "string" ? node : undefined;
}
