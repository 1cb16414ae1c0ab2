import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BRAND_IDS, BRANDS } from "@gatehouse/contract";
import { describe, expect, it } from "vitest";
import { LOGO_SIZES } from "../src/app/Layout.tsx";

const PUBLIC = join(import.meta.dirname, "..", "public");

/** The width and height the logo's SVG declares on its root element. */
function declaredSize(svg: string): { width: number; height: number } {
  const root = /<svg\b[^>]*>/u.exec(svg)?.[0] ?? "";
  const attribute = (name: string) => Number(new RegExp(`\\s${name}="([\\d.]+)"`, "u").exec(root)?.[1]);
  return { width: attribute("width"), height: attribute("height") };
}

describe("brand logos", () => {
  it.each(BRAND_IDS)("%s: the page's logo has the size of its file, so nothing shifts when it loads", (id) => {
    const size = declaredSize(readFileSync(join(PUBLIC, BRANDS[id].logo), "utf8"));
    expect(size.width).toBeGreaterThan(0);
    expect(LOGO_SIZES[id]).toEqual(size);
  });
});
