import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import en from "@gatehouse/contract/i18n/en.json";
import { describe, expect, it } from "vitest";
import { catalogPart, LATER_ERRORS, LATER_SECTIONS, SERVER_ONLY_SECTIONS } from "../src/i18n/parts.ts";

const SRC = join(import.meta.dirname, "../src");

/** The source files of the login route and the app's frame: everything but the other screens' folders. */
function firstPartSources(): string[] {
  const laterScreens = [
    "activate",
    "corporate",
    "desktop",
    "password",
    "popup",
    "profile",
    "register",
    "service",
    "social",
    "studio",
    "trial",
    "forum",
    // Issue #26: the second-factor screen, and the step-up dialog the frame loads only when a call needs it.
    "second-factor",
    "step-up",
    // Issue #27: the security page.
    "security",
  ];
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!(dir.endsWith("screens") && laterScreens.includes(entry.name))) walk(path);
      } else if (/\.tsx?$/u.test(entry.name)) files.push(path);
    }
  };
  walk(SRC);
  return files.filter(
    (file) => !/screens[\\/](login[\\/](LoginSuccess|Logout)|system[\\/]ErrorPage)\.tsx$/u.test(file),
  );
}

describe("the catalog's two parts (issue #9 budget)", () => {
  it("splits every section into exactly one part, and keeps the e-mails out of both", () => {
    const first = Object.keys(catalogPart(en, false));
    const later = Object.keys(catalogPart(en, true)).filter((section) => section !== "errors");
    expect([...first, ...later, ...SERVER_ONLY_SECTIONS].sort()).toEqual(Object.keys(en).sort());
    expect(later.sort()).toEqual([...LATER_SECTIONS].sort());
  });

  it("cuts the error messages in two: each in exactly one part, the later ones only with later screens", () => {
    const first = catalogPart(en, false).errors as Record<string, string>;
    const later = catalogPart(en, true).errors as Record<string, string>;
    expect(Object.keys({ ...first, ...later }).sort()).toEqual(Object.keys(en.errors).sort());
    expect(Object.keys(later).sort()).toEqual([...LATER_ERRORS].sort());
    expect(Object.keys(first)).toContain("invalid_authentication");
    expect(Object.keys(first)).not.toContain("weak_password");
  });

  it("never has the login route or the app's frame name a key of the later part", () => {
    const used = firstPartSources().flatMap((file) => {
      const source = readFileSync(file, "utf8");
      return LATER_SECTIONS.filter((section) => new RegExp(`["'\`]${section}\\.`, "u").test(source)).map(
        (section) => `${file}: ${section}`,
      );
    });
    expect(used).toEqual([]);
  });
});
