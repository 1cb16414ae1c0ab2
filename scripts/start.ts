/**
 * `npm start`: builds the SPA when its build is missing or older than its sources, then serves everything
 * (ARCHITECTURE.md runtime contract). Configuration comes from the environment only (docs/configuration.md "Configuration").
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "..");
const BUILT = join(ROOT, "packages/web/dist/index.html");
const SOURCES = [
  "packages/web/src",
  "packages/web/public",
  "packages/web/index.html",
  "packages/web/vite.config.ts",
  // The build's own steps (precompression, the preload list): a change there makes a new build too.
  "packages/web/scripts",
  "packages/contract/src",
];

function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((latest, name) => Math.max(latest, newest(join(path, name))), stat.mtimeMs);
}

const builtAt = existsSync(BUILT) ? statSync(BUILT).mtimeMs : 0;
const sourcesAt = Math.max(...SOURCES.map((s) => newest(join(ROOT, s))));
if (!process.env.WEB_DIST && sourcesAt > builtAt) {
  console.log(builtAt ? "The web app changed: rebuilding it." : "Building the web app (first start).");
  // Vite alone, warnings only: `npm start` prints what a person needs; `npm run build` reports sizes.
  const build = spawnSync("npx", ["vite", "build", "--logLevel", "warn"], {
    cwd: join(ROOT, "packages/web"),
    stdio: "inherit",
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

await import("../packages/server/src/main.ts");
