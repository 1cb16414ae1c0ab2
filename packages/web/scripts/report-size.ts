import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

/**
 * Prints the gzip size of the JavaScript the login route (/) loads: the entry, its static imports, and the
 * Login screen's chunk with its imports, from Vite's manifest. Target (issue #2): ≤ 100 KB.
 */
const TARGET_KB = 100;
const dist = join(import.meta.dirname, "..", "dist");
type Chunk = { file: string; imports?: string[]; dynamicImports?: string[]; isEntry?: boolean; src?: string };
const manifest = JSON.parse(readFileSync(join(dist, ".vite", "manifest.json"), "utf8")) as Record<string, Chunk>;

const files = new Set<string>();
function add(key: string) {
  const chunk = manifest[key];
  if (!chunk || files.has(chunk.file)) return;
  files.add(chunk.file);
  for (const imported of chunk.imports ?? []) add(imported);
}
add("index.html");
add("src/screens/login/Login.tsx");

let total = 0;
for (const file of files) {
  const size = gzipSync(readFileSync(join(dist, file)), { level: 9 }).length;
  total += size;
  console.log(`  ${(size / 1024).toFixed(1).padStart(6)} KB  ${file}`);
}
const kb = total / 1024;
console.log(
  `login route JavaScript: ${kb.toFixed(1)} KB gzip (target ≤ ${TARGET_KB} KB: ${kb <= TARGET_KB ? "met" : "NOT met"})`,
);
