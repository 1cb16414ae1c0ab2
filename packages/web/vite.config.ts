import { resolve } from "node:path";
import react from "@vitejs/plugin-react";
import { defineConfig, type Plugin } from "vite";
import { precompress } from "./scripts/precompress.ts";
import { writePreloads } from "./scripts/preloads.ts";
import { catalogPart, LATER_PART_QUERY } from "./src/i18n/parts.ts";

/**
 * After the bundle is written (issue #9): the host page's preload list (dist/.vite/preloads.json, from the
 * manifest), then `.br` and `.gz` beside every text asset, for the gateway to serve as they are. Every build runs
 * it, `npm start`'s quiet one included.
 */
function firstLoad(): Plugin {
  let dist = "";
  let base = "/";
  return {
    name: "gatehouse-first-load",
    apply: "build",
    configResolved(config) {
      dist = resolve(config.root, config.build.outDir);
      base = config.base;
    },
    closeBundle: {
      order: "post",
      sequential: true,
      async handler() {
        writePreloads(dist, base);
        await precompress(dist);
      },
    },
  };
}

/**
 * The catalogs as the browser needs them (src/i18n/parts.ts): `…/i18n/<language>.json` is the first part, and
 * `…?later` the sections only later screens show; the e-mails' wording is in neither. Cut before Vite turns the
 * JSON into a module.
 */
function browserCatalogs(): Plugin {
  const catalog = new RegExp(`[\\\\/]contract[\\\\/]src[\\\\/]i18n[\\\\/]\\w+\\.json(\\?${LATER_PART_QUERY})?$`, "u");
  return {
    name: "gatehouse-browser-catalogs",
    enforce: "pre",
    transform(code, id) {
      const match = catalog.exec(id);
      if (!match) return undefined;
      const later = match[1] !== undefined;
      const part = JSON.stringify(catalogPart(JSON.parse(code) as Record<string, unknown>, later));
      // The bundler knows a module's type by its extension, and `.json?later` has none it knows: it gets JS.
      if (later) return { code: `export default JSON.parse(${JSON.stringify(part)});`, map: null, moduleType: "js" };
      return { code: part, map: null };
    },
  };
}

/**
 * Fewer files for the first screen (issue #9): a phone on a slow link pays a round trip per file it fetches, so what
 * the entry imports (the app frame) is one chunk, and what the sign-in screen imports beyond it is another; the
 * other screens stay a chunk each and take what they share from those two. Both sets are read from the module graph
 * once it is built. The entry module itself stays in its own chunk: it is the page's script and starts the app.
 */
function firstScreenChunks() {
  const entry = /[\\/]src[\\/]main\.tsx$/u;
  const signInScreen = /[\\/]src[\\/]screens[\\/]login[\\/]Login\.tsx$/u;
  // The catalogs stay chunks of their own, one per language (a module may import one only for its types).
  const catalog = /[\\/]i18n[\\/]\w+\.json(\?.*)?$/u;
  const frame = new Set<string>();
  const signIn = new Set<string>();
  const plugin: Plugin = {
    name: "gatehouse-first-screen-chunks",
    apply: "build",
    buildEnd() {
      const ids = [...this.getModuleIds()];
      const collect = (id: string, into: Set<string>, except: Set<string>) => {
        if (into.has(id) || except.has(id) || catalog.test(id)) return;
        into.add(id);
        for (const next of this.getModuleInfo(id)?.importedIds ?? []) collect(next, into, except);
      };
      const [main, screen] = [entry, signInScreen].map((pattern) => ids.find((id) => pattern.test(id)));
      // A moved module would quietly undo the grouping: the build stops instead.
      if (!main || !screen)
        throw new Error("vite.config.ts: the entry or the sign-in screen moved; update firstScreenChunks");
      collect(main, frame, new Set());
      collect(screen, signIn, frame);
    },
  };
  return {
    plugin,
    groups: [
      { name: "app", test: (id: string) => frame.has(id) && !entry.test(id) },
      { name: "sign-in", test: (id: string) => signIn.has(id) },
    ],
  };
}
const chunks = firstScreenChunks();

/** The SPA build. `npm start` serves dist/ through the gateway; `vite` alone proxies /api to it. */
export default defineConfig({
  plugins: [browserCatalogs(), react(), firstLoad(), chunks.plugin],
  build: {
    target: "es2022",
    sourcemap: true,
    manifest: true,
    reportCompressedSize: false,
    rolldownOptions: { output: { codeSplitting: { groups: chunks.groups } } },
  },
  server: { proxy: { "/api": "http://localhost:8080" } },
});
