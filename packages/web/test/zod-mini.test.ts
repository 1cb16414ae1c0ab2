import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * The browser validates with the contract's schemas built on zod/mini: zod classic (its method chains, English
 * locale and JSON-schema generator) would add about 15 KB brotli to the login route (docs/decisions.md
 * "Validation library"). One import of classic zod anywhere the browser reaches brings it all back.
 */
const BROWSER_SOURCES = [new URL("../src", import.meta.url), new URL("../../contract/src", import.meta.url)];
const ZOD_IMPORT = /(?:from\s*|import\s*\(\s*|import\s+)["'](zod(?:\/[^"']*)?)["']/gu;
const ALLOWED = new Set(["zod/mini"]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx)$/u.test(entry.name) ? [path] : [];
  });
}

describe("zod in the browser", () => {
  it("imports zod only as zod/mini in the web app and the contract", () => {
    const files = BROWSER_SOURCES.flatMap((url) => sourceFiles(fileURLToPath(url)));
    expect(files.length).toBeGreaterThan(10);
    const classic = files.flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(ZOD_IMPORT)]
        .map((match) => match[1] ?? "")
        .filter((specifier) => !ALLOWED.has(specifier))
        .map((specifier) => `${file}: ${specifier}`),
    );
    expect(classic).toEqual([]);
  });
});
