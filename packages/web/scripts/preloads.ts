import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SCREEN_FILES } from "../src/app/screen-files.ts";
import { FIRST_PART_ROUTES, LATER_PART_QUERY } from "../src/i18n/parts.ts";

/**
 * What the host page preloads for each route and language (issue #9: no second wave of chunks). The entry's own
 * imports are in index.html already (Vite writes them); what the entry would only discover once it runs — the
 * route's screen chunk with its imports and styles, and the page language's catalog — is listed here, from Vite's
 * manifest, for the gateway to write into the HTML's head.
 */

/** One entry of Vite's build manifest (dist/.vite/manifest.json). */
export interface ManifestChunk {
  file: string;
  src?: string;
  isEntry?: boolean;
  isDynamicEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  css?: string[];
}
export type Manifest = Record<string, ManifestChunk>;

/** Files by URL path (`/assets/…`). */
export interface PreloadFiles {
  js: string[];
  css: string[];
}

/** dist/.vite/preloads.json: read by the gateway's host page (packages/server/src/http/host-head.ts). */
export interface Preloads {
  /** By route id of the contract's ROUTES: the screen's chunks and styles that the entry does not load itself. */
  routes: Record<string, PreloadFiles>;
  /** By language code: its catalog's chunks, when the catalog is a chunk of its own (its first part). */
  catalogs: Record<string, PreloadFiles>;
  /** By language code: the chunks of its catalog's later part (src/i18n/parts.ts). */
  laterCatalogs: Record<string, PreloadFiles>;
  /** The routes whose screens need the later part too: every screen route but those of FIRST_PART_ROUTES. */
  laterRoutes: string[];
}

export const PRELOADS_FILE = "preloads.json";
/** Where Vite keeps the manifest; the preloads go beside it. */
export const VITE_META_DIR = ".vite";

/** A catalog module of the contract, `…/i18n/<language>.json`; the language is what the name says. */
const CATALOG_MODULE = /\/i18n\/([a-z]+)\.json$/u;
/** A catalog's later part, `…/i18n/<language>.json?later`. */
const LATER_PART_MODULE = new RegExp(`/i18n/([a-z]+)\\.json\\?${LATER_PART_QUERY}$`, "u");

/** The chunk files and styles a manifest entry loads before it runs: itself and its static imports, deep. */
function closure(manifest: Manifest, key: string, into: PreloadFiles = { js: [], css: [] }): PreloadFiles {
  const chunk = manifest[key];
  if (!chunk || into.js.includes(chunk.file)) return into;
  into.js.push(chunk.file);
  for (const css of chunk.css ?? []) if (!into.css.includes(css)) into.css.push(css);
  for (const imported of chunk.imports ?? []) closure(manifest, imported, into);
  return into;
}

function without(files: PreloadFiles, loaded: PreloadFiles, base: string): PreloadFiles {
  return {
    js: files.js.filter((file) => !loaded.js.includes(file)).map((file) => base + file),
    css: files.css.filter((file) => !loaded.css.includes(file)).map((file) => base + file),
  };
}

/** The preloads of every screen route and every catalog chunk, minus what the entry loads already. */
export function preloadsFrom(
  manifest: Manifest,
  screens: Partial<Record<string, string>> = SCREEN_FILES,
  base = "/",
): Preloads {
  const entry = closure(manifest, "index.html");
  const routes: Preloads["routes"] = {};
  for (const [id, screen] of Object.entries(screens)) {
    const key = `src/screens/${screen}.tsx`;
    if (!manifest[key]) throw new Error(`The build has no chunk for ${key} (SCREEN_FILES.${id}).`);
    routes[id] = without(closure(manifest, key), entry, base);
  }
  const catalogs: Preloads["catalogs"] = {};
  const laterCatalogs: Preloads["laterCatalogs"] = {};
  for (const [key, chunk] of Object.entries(manifest)) {
    const language = CATALOG_MODULE.exec(chunk.src ?? key)?.[1];
    if (language) catalogs[language] = without(closure(manifest, key), entry, base);
    const laterLanguage = LATER_PART_MODULE.exec(chunk.src ?? key)?.[1];
    if (laterLanguage) laterCatalogs[laterLanguage] = without(closure(manifest, key), entry, base);
  }
  const laterRoutes = Object.keys(screens).filter((id) => !FIRST_PART_ROUTES.includes(id));
  return { routes, catalogs, laterCatalogs, laterRoutes };
}

/** Writes dist/.vite/preloads.json from dist/.vite/manifest.json. */
export function writePreloads(dist: string, base = "/"): Preloads {
  const dir = join(dist, VITE_META_DIR);
  const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as Manifest;
  const preloads = preloadsFrom(manifest, SCREEN_FILES, base);
  writeFileSync(join(dir, PRELOADS_FILE), `${JSON.stringify(preloads, null, 2)}\n`);
  return preloads;
}
