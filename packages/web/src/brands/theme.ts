import type { Brand } from "@gatehouse/contract";

/** Writes a brand's colours as CSS custom properties on the root element (STYLE.md §8: brands are data). */
export function applyTheme(brand: Brand, root: HTMLElement = document.documentElement): void {
  for (const [name, value] of Object.entries(brand.colors)) {
    root.style.setProperty(`--color-${name.replace(/[A-Z]/gu, (c) => `-${c.toLowerCase()}`)}`, value);
  }
  root.style.colorScheme = brand.colorScheme;
  root.dataset.brand = brand.id;
}
