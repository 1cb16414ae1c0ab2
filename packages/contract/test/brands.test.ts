import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BRAND_IDS, BRANDS } from "../src/index.ts";

/** WCAG 2.x relative luminance and contrast ratio. */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
const contrast = (a: string, b: string) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
};

describe.each(BRAND_IDS)("brand %s", (id) => {
  const brand = BRANDS[id];

  it("is complete", () => {
    expect(brand.id).toBe(id);
    expect(brand.name).not.toBe("");
    for (const link of [
      brand.links.home,
      brand.links.privacy,
      brand.links.terms,
      brand.links.licence,
      brand.links.support,
    ]) {
      expect(new URL(link).protocol).toBe("https:");
    }
    expect(existsSync(join(import.meta.dirname, "..", "..", "web", "public", brand.logo))).toBe(true);
  });

  it("meets WCAG AA contrast for text and buttons", () => {
    const { colors } = brand;
    expect(contrast(colors.onPrimary, colors.primary)).toBeGreaterThanOrEqual(4.5);
    expect(contrast(colors.text, colors.surface)).toBeGreaterThanOrEqual(4.5);
    expect(contrast(colors.text, colors.background)).toBeGreaterThanOrEqual(4.5);
    expect(contrast(colors.muted, colors.surface)).toBeGreaterThanOrEqual(4.5);
    expect(contrast(colors.primary, colors.surface)).toBeGreaterThanOrEqual(4.5);
    expect(contrast(colors.danger, colors.surface)).toBeGreaterThanOrEqual(4.5);
  });
});

it("has the seven themes of spec §1", () => {
  expect(BRAND_IDS).toHaveLength(7);
});
