import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import { extname, join } from "node:path";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";

/**
 * Precompressed static files (issue #9): every text asset of the build gets a `.br` (brotli, quality 11) and a
 * `.gz` (gzip, level 9) sibling, which the gateway serves as they are (@fastify/static `preCompressed`), so no
 * request pays for compression and every visitor gets the smallest form their browser takes.
 */

/** Text formats worth compressing; images (png) and fonts (woff2) are compressed already. */
export const COMPRESSIBLE_EXTENSIONS = new Set([
  ".js",
  ".mjs",
  ".css",
  ".svg",
  ".json",
  ".html",
  ".txt",
  ".map",
  ".xml",
  ".webmanifest",
  ".ico",
]);

/** Below this a file fits in one packet anyway: compressing it saves no round trip. */
export const MIN_COMPRESS_BYTES = 1024;

/**
 * Not served as a file, so not worth compressing: Vite's build metadata (manifest, preloads), and the HTML
 * template, which the gateway fills in per request and never sends as it is.
 */
const SKIPPED = new Set([".vite", "index.html"]);

const brotli = promisify(brotliCompress);
const gz = promisify(gzip);

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries
      .filter((entry) => !SKIPPED.has(entry.name))
      .map((entry) => {
        const path = join(dir, entry.name);
        return entry.isDirectory() ? filesUnder(path) : Promise.resolve([path]);
      }),
  );
  return nested.flat();
}

/** The compressed forms of one file, each written only when it is smaller than the original. */
async function compressFile(path: string): Promise<{ path: string; size: number; br?: number; gz?: number }> {
  const original = await readFile(path);
  const [br, gzipped] = await Promise.all([
    brotli(original, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: original.length,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      },
    }),
    gz(original, { level: constants.Z_BEST_COMPRESSION }),
  ]);
  const result: { path: string; size: number; br?: number; gz?: number } = { path, size: original.length };
  if (br.length < original.length) {
    await writeFile(`${path}.br`, br);
    result.br = br.length;
  }
  if (gzipped.length < original.length) {
    await writeFile(`${path}.gz`, gzipped);
    result.gz = gzipped.length;
  }
  return result;
}

/** Writes `.br` and `.gz` beside every compressible file of `dist` of at least MIN_COMPRESS_BYTES. */
export async function precompress(dist: string) {
  const candidates: string[] = [];
  for (const path of await filesUnder(dist)) {
    if (!COMPRESSIBLE_EXTENSIONS.has(extname(path))) continue;
    if ((await stat(path)).size >= MIN_COMPRESS_BYTES) candidates.push(path);
  }
  return Promise.all(candidates.map(compressFile));
}
