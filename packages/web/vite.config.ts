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

/** The SPA build. `npm start` serves dist/ through the gateway; `vite` alone proxies /api to it. */
export default defineConfig({
  plugins: [browserCatalogs(), react(), firstLoad()],
  build: { target: "es2022", sourcemap: true, manifest: true, reportCompressedSize: false },
  server: { proxy: { "/api": "http://localhost:8080" } },
});
