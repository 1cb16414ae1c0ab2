import type { BrandId } from "@gatehouse/contract";

export interface MailLogo {
  /** Served by the web app under /brands/ on every brand host. */
  readonly path: string;
  /** CSS pixels; the PNG has twice as many, for sharp logos on high-density screens. */
  readonly width: number;
  readonly height: number;
}

/**
 * Mail shows the brand logos as PNG: Gmail and Outlook do not display SVG. Each PNG is its SVG
 * (`packages/web/public/brands/<id>.svg`) drawn at twice its size, e.g. `rsvg-convert -w 414 -h 72 cloud.svg`;
 * the mail test checks that files and sizes agree. Width and height go into the `<img>`, which Outlook needs.
 */
export const MAIL_LOGOS: Record<BrandId, MailLogo> = {
  default: { path: "/brands/default.png", width: 169, height: 36 },
  cloud: { path: "/brands/cloud.png", width: 207, height: 36 },
  archviz: { path: "/brands/archviz.png", width: 144, height: 36 },
  configurator: { path: "/brands/configurator.png", width: 207, height: 36 },
  engine: { path: "/brands/engine.png", width: 131, height: 36 },
  assets: { path: "/brands/assets.png", width: 131, height: 36 },
  cross: { path: "/brands/cross.png", width: 270, height: 36 },
};
