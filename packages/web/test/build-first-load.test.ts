import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { MIN_COMPRESS_BYTES, precompress } from "../scripts/precompress.ts";
import { type Manifest, preloadsFrom } from "../scripts/preloads.ts";

/** A manifest shaped like Vite's: an entry with a shared chunk, two screens, two catalogs (issue #9). */
const MANIFEST: Manifest = {
  "index.html": { file: "assets/index-1.js", isEntry: true, imports: ["_shared-1.js"], css: ["assets/index-1.css"] },
  "_shared-1.js": { file: "assets/shared-1.js", css: ["assets/shared-1.css"] },
  "_field-1.js": { file: "assets/field-1.js", imports: ["_shared-1.js"], css: ["assets/field-1.css"] },
  "src/screens/login/Login.tsx": {
    file: "assets/Login-1.js",
    isDynamicEntry: true,
    imports: ["_shared-1.js", "_field-1.js"],
    css: ["assets/Login-1.css"],
  },
  "src/screens/password/Recover.tsx": { file: "assets/Recover-1.js", isDynamicEntry: true, imports: ["_field-1.js"] },
  "../contract/src/i18n/en.json": { file: "assets/en-1.js", src: "../contract/src/i18n/en.json", isDynamicEntry: true },
  "../contract/src/i18n/de.json": { file: "assets/de-1.js", src: "../contract/src/i18n/de.json", isDynamicEntry: true },
  "../contract/src/i18n/de.json?later": {
    file: "assets/de-2.js",
    src: "../contract/src/i18n/de.json?later",
    isDynamicEntry: true,
  },
};
const SCREENS = { LOGIN: "login/Login", PASSWORD_RECOVER: "password/Recover" };

describe("the preload list", () => {
  it("lists each route's chunks and styles, deep, minus what the entry loads already", () => {
    const { routes } = preloadsFrom(MANIFEST, SCREENS);
    expect(routes.LOGIN).toEqual({
      js: ["/assets/Login-1.js", "/assets/field-1.js"],
      css: ["/assets/Login-1.css", "/assets/field-1.css"],
    });
    expect(routes.PASSWORD_RECOVER).toEqual({
      js: ["/assets/Recover-1.js", "/assets/field-1.js"],
      css: ["/assets/field-1.css"],
    });
  });

  it("lists every language's catalog chunk, English included when it is one", () => {
    expect(preloadsFrom(MANIFEST, SCREENS).catalogs).toEqual({
      en: { js: ["/assets/en-1.js"], css: [] },
      de: { js: ["/assets/de-1.js"], css: [] },
    });
  });

  it("lists each language's later catalog part, for every screen route but sign-in", () => {
    const { laterCatalogs, laterRoutes } = preloadsFrom(MANIFEST, SCREENS);
    expect(laterCatalogs).toEqual({ de: { js: ["/assets/de-2.js"], css: [] } });
    expect(laterRoutes).toEqual(["PASSWORD_RECOVER"]);
  });

  it("refuses a screen the build has no chunk for", () => {
    expect(() => preloadsFrom(MANIFEST, { ...SCREENS, REGISTER: "register/Register" })).toThrow(/REGISTER/u);
  });
});

describe("precompression", () => {
  const text = (bytes: number) => "let a = 1;\n".repeat(Math.ceil(bytes / 11)).slice(0, bytes);

  it("writes .br and .gz beside text assets that decode to the original, and leaves the rest alone", async () => {
    const dist = mkdtempSync(join(tmpdir(), "gatehouse-precompress-"));
    mkdirSync(join(dist, "assets"));
    mkdirSync(join(dist, ".vite"));
    const files = {
      script: join(dist, "assets/app.js"),
      small: join(dist, "assets/tiny.js"),
      image: join(dist, "logo.png"),
      noise: join(dist, "assets/noise.json"),
      template: join(dist, "index.html"),
      manifest: join(dist, ".vite/manifest.json"),
    };
    writeFileSync(files.script, text(8000));
    writeFileSync(files.small, text(MIN_COMPRESS_BYTES - 1));
    writeFileSync(files.image, text(8000));
    writeFileSync(files.noise, randomBytes(4000)); // random bytes do not get smaller
    writeFileSync(files.template, text(8000));
    writeFileSync(files.manifest, text(8000));

    await precompress(dist);

    expect(brotliDecompressSync(readFileSync(`${files.script}.br`)).equals(readFileSync(files.script))).toBe(true);
    expect(gunzipSync(readFileSync(`${files.script}.gz`)).equals(readFileSync(files.script))).toBe(true);
    for (const untouched of [files.small, files.image, files.noise, files.template, files.manifest]) {
      expect(existsSync(`${untouched}.br`), untouched).toBe(false);
      expect(existsSync(`${untouched}.gz`), untouched).toBe(false);
    }
  });
});
