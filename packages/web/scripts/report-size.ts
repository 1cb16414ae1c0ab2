import { readFileSync } from "node:fs";
import { join } from "node:path";
import { brotliCompressSync, constants } from "node:zlib";
import { type Manifest, PRELOADS_FILE, type Preloads, VITE_META_DIR } from "./preloads.ts";

/**
 * Prints the JavaScript the login route (/) needs as transferred, in brotli (the `.br` files the gateway sends):
 * the entry and its imports, the Login screen's chunks, and the page language's catalog chunk — for English and
 * for the language whose catalog weighs most. Target (issue #9): ≤ 110 KB.
 */
const TARGET_KB = 110;
const DEFAULT_LANGUAGE = "en";
const dist = join(import.meta.dirname, "..", "dist");
const meta = join(dist, VITE_META_DIR);
const manifest = JSON.parse(readFileSync(join(meta, "manifest.json"), "utf8")) as Manifest;
const preloads = JSON.parse(readFileSync(join(meta, PRELOADS_FILE), "utf8")) as Preloads;

const sizes = new Map<string, number>();
/** Brotli at quality 11, as the build precompresses; by URL path. */
function brotliSize(path: string): number {
  let size = sizes.get(path);
  if (size === undefined) {
    const file = readFileSync(join(dist, path));
    size = brotliCompressSync(file, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
    sizes.set(path, size);
  }
  return size;
}

function entryFiles(key = "index.html", into = new Set<string>()): Set<string> {
  const chunk = manifest[key];
  if (!chunk || into.has(`/${chunk.file}`)) return into;
  into.add(`/${chunk.file}`);
  for (const imported of chunk.imports ?? []) entryFiles(imported, into);
  return into;
}

const route = [...entryFiles(), ...(preloads.routes.LOGIN?.js ?? [])];
const catalogOf = (language: string) => preloads.catalogs[language]?.js ?? [];
const total = (files: string[]) => files.reduce((sum, file) => sum + brotliSize(file), 0) / 1024;
const largest = Object.keys(preloads.catalogs).sort((a, b) => total(catalogOf(b)) - total(catalogOf(a)))[0];

for (const file of route) console.log(`  ${(brotliSize(file) / 1024).toFixed(1).padStart(6)} KB  ${file}`);
for (const language of new Set([DEFAULT_LANGUAGE, largest ?? DEFAULT_LANGUAGE])) {
  const catalog = catalogOf(language);
  const kb = total([...new Set([...route, ...catalog])]);
  const verdict = kb <= TARGET_KB ? "met" : "NOT met";
  const note = catalog.length === 0 ? "catalog in the entry" : `catalog ${total(catalog).toFixed(1)} KB`;
  console.log(
    `login route JavaScript, ${language} (${note}): ${kb.toFixed(1)} KB brotli (target ≤ ${TARGET_KB} KB: ${verdict})`,
  );
}
