import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { brotliDecompressSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, tempDir } from "./harness.ts";

/**
 * No second wave of chunks (issue #9): the HTML of each route names, from its own head, every chunk and style the
 * entry, the route's screen and the page language's catalog need. Checked against a real build's manifest: the
 * web app is built into a temporary folder, so the test does not depend on (or disturb) packages/web/dist.
 */
const ROOT = resolve(import.meta.dirname, "../../..");
const BUILD_MS = 180_000;

type Chunk = { file: string; imports?: string[]; css?: string[]; src?: string };
let server: TestServer;
let dist: string;
let manifest: Record<string, Chunk>;

beforeAll(async () => {
  dist = join(tempDir(), "dist");
  const build = spawnSync(
    process.execPath,
    [join(ROOT, "node_modules/vite/bin/vite.js"), "build", "--outDir", dist, "--emptyOutDir", "--logLevel", "error"],
    { cwd: join(ROOT, "packages/web"), encoding: "utf8" },
  );
  if (build.status !== 0) throw new Error(`web build failed: ${build.stderr}`);
  manifest = JSON.parse(readFileSync(join(dist, ".vite/manifest.json"), "utf8"));
  server = await startServer({ env: { WEB_DIST: dist } });
}, BUILD_MS);
afterAll(() => server?.close());

/** What a manifest entry loads before it runs, read straight from the manifest: itself and its imports, deep. */
function needs(key: string, found = { js: new Set<string>(), css: new Set<string>() }) {
  const chunk = manifest[key];
  if (!chunk || found.js.has(`/${chunk.file}`)) return found;
  found.js.add(`/${chunk.file}`);
  for (const css of chunk.css ?? []) found.css.add(`/${css}`);
  for (const imported of chunk.imports ?? []) needs(imported, found);
  return found;
}

function catalogKey(language: string): string | undefined {
  return Object.keys(manifest).find((key) => key.endsWith(`/i18n/${language}.json`));
}

/** Every script, module preload and stylesheet the HTML names, in order. */
function named(html: string) {
  const hrefs = (pattern: RegExp) => [...html.matchAll(pattern)].map((match) => match[1] ?? "");
  return {
    js: [
      ...hrefs(/<script type="module" crossorigin src="([^"]+)"/gu),
      ...hrefs(/<link rel="modulepreload" crossorigin href="([^"]+)"/gu),
    ],
    css: hrefs(/<link rel="stylesheet" crossorigin href="([^"]+)"/gu),
  };
}

/** A catalog's later part (the sections only screens other than sign-in show), `…/i18n/<language>.json?later`. */
function laterPartKey(language: string): string | undefined {
  return Object.keys(manifest).find((key) => key.endsWith(`/i18n/${language}.json?later`));
}

/** Path, screen module, and whether the screen needs the catalog's later part (every screen but sign-in). */
const ROUTE_SCREENS: [string, string | undefined, boolean][] = [
  ["/", "src/screens/login/Login.tsx", false],
  ["/register", "src/screens/register/Register.tsx", true],
  ["/account/recover", "src/screens/password/Recover.tsx", true],
  ["/no/such/page", undefined, false],
];

describe("the host page's preloads", () => {
  for (const language of ["en", "de", "jp"]) {
    it.each(ROUTE_SCREENS)(
      `names every chunk and style %s needs, in ${language}, each once`,
      async (path, screen, later) => {
        const answer = await server.app.inject({ method: "GET", url: path, headers: { cookie: `lang=${language}` } });
        const expected = needs("index.html");
        if (screen) needs(screen, expected);
        const catalog = catalogKey(language);
        if (language !== "en") expect(catalog, "each language but English has a catalog chunk").toBeDefined();
        if (catalog) needs(catalog, expected);
        const laterPart = laterPartKey(language);
        if (later) expect(laterPart, "each language has a later part").toBeDefined();
        if (later && laterPart) needs(laterPart, expected);

        const { js, css } = named(answer.body);
        expect(new Set(js)).toEqual(expected.js);
        expect(new Set(css)).toEqual(expected.css);
        expect(js.length, "no chunk named twice").toBe(expected.js.size);
        expect(css.length, "no style named twice").toBe(expected.css.size);
      },
    );
  }

  it("preloads a language's catalog, and no other's", async () => {
    const german = (await server.app.inject({ method: "GET", url: "/", headers: { cookie: "lang=de" } })).body;
    for (const language of ["es", "pt", "it", "fr", "cn", "kr", "jp"]) {
      const file = manifest[catalogKey(language) ?? ""]?.file;
      expect(file && german.includes(file)).toBe(false);
    }
  });

  it("serves the build's chunks precompressed", async () => {
    const entry = manifest["index.html"]?.file ?? "";
    const answer = await server.app.inject({ method: "GET", url: `/${entry}`, headers: { "accept-encoding": "br" } });
    expect(answer.headers["content-encoding"]).toBe("br");
    expect(brotliDecompressSync(answer.rawPayload).equals(readFileSync(join(dist, entry)))).toBe(true);
  });
});
