import { resolve } from "node:path";
import react from "@vitejs/plugin-react";
import { defineConfig, type Plugin } from "vite";
import { precompress } from "./scripts/precompress.ts";
import { writePreloads } from "./scripts/preloads.ts";

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

/** Sections of the catalogs only the server uses (the e-mails' wording): they never reach a browser. */
const SERVER_ONLY_SECTIONS = ["mail"];

/**
 * The catalogs as the browser needs them: each language's chunk loads with the login route, so the e-mails'
 * wording (a seventh of a catalog) is dropped from it before Vite turns the JSON into a module (issue #9 budget).
 */
function browserCatalogs(): Plugin {
  return {
    name: "gatehouse-browser-catalogs",
    enforce: "pre",
    transform(code, id) {
      if (!/[\\/]contract[\\/]src[\\/]i18n[\\/]\w+\.json$/u.test(id)) return undefined;
      const catalog = JSON.parse(code) as Record<string, unknown>;
      for (const section of SERVER_ONLY_SECTIONS) delete catalog[section];
      return { code: JSON.stringify(catalog), map: null };
    },
  };
}

/** The SPA build. `npm start` serves dist/ through the gateway; `vite` alone proxies /api to it. */
export default defineConfig({
  plugins: [browserCatalogs(), react(), firstLoad()],
  build: { target: "es2022", sourcemap: true, manifest: true, reportCompressedSize: false },
  server: { proxy: { "/api": "http://localhost:8080" } },
});
