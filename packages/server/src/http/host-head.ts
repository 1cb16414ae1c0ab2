import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  BRAND_IDS,
  BRANDS,
  type BrandId,
  LANGUAGE_CODES,
  LANGUAGES,
  type Language,
  loadCatalog,
  ROUTE_IDS,
  ROUTES,
  UI_PATHS,
} from "@gatehouse/contract";

/**
 * The host page's head, as far as it depends on the path, the language and the brand (issue #9). Everything here
 * is computed once at start, per path and language and per brand and language, so a request only fills in its
 * settings: the preload links of the route's screen and of the language's catalog (no second wave of chunks once
 * the entry runs), the `lang` attribute, the title, the meta description and the theme colour.
 */

/** dist/.vite/preloads.json as the web build writes it (packages/web/scripts/preloads.ts). */
interface PreloadFiles {
  js: string[];
  css: string[];
}
interface Preloads {
  routes: Record<string, PreloadFiles>;
  catalogs: Record<string, PreloadFiles>;
  /** Each language's later catalog part, which the screens of `laterRoutes` load beside their chunks. */
  laterCatalogs: Record<string, PreloadFiles>;
  laterRoutes: string[];
}
export const PRELOADS_PATH = join(".vite", "preloads.json");

const NO_FILES: PreloadFiles = { js: [], css: [] };

/** The key under which the page of an unknown path (404) is kept: it preloads only the language's catalog. */
export const NOT_FOUND_PAGE = "*";

/** Text for HTML, in an attribute or between tags (OWASP XSS rule 2). */
export function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

function filesOf(value: unknown): PreloadFiles {
  const files = value as Partial<PreloadFiles> | undefined;
  const strings = (list: unknown) =>
    Array.isArray(list) ? list.filter((item): item is string => typeof item === "string") : [];
  return { js: strings(files?.js), css: strings(files?.css) };
}

/** The build's preload list; none when the build predates it (the page then works as before, in two waves). */
export function readPreloads(webDist: string): Preloads {
  const file = join(webDist, PRELOADS_PATH);
  if (!existsSync(file)) return { routes: {}, catalogs: {}, laterCatalogs: {}, laterRoutes: [] };
  const parsed = JSON.parse(readFileSync(file, "utf8")) as Partial<Preloads>;
  const mapOf = (record: unknown) =>
    Object.fromEntries(Object.entries((record ?? {}) as Record<string, unknown>).map(([k, v]) => [k, filesOf(v)]));
  return {
    routes: mapOf(parsed.routes),
    catalogs: mapOf(parsed.catalogs),
    laterCatalogs: mapOf(parsed.laterCatalogs),
    laterRoutes: Array.isArray(parsed.laterRoutes) ? parsed.laterRoutes.filter((id) => typeof id === "string") : [],
  };
}

/** `crossorigin` as Vite writes its own links, so the browser reuses each preload for the module it becomes. */
function links(files: PreloadFiles): string {
  const modules = files.js.map((href) => `<link rel="modulepreload" crossorigin href="${escapeHtml(href)}">`);
  const styles = files.css.map((href) => `<link rel="stylesheet" crossorigin href="${escapeHtml(href)}">`);
  return [...styles, ...modules].join("");
}

function routeIdOf(path: string): string | undefined {
  return ROUTE_IDS.find((id) => ROUTES[id].path === path);
}

/**
 * What the host page preloads on `path` (or NOT_FOUND_PAGE) in `language`: the route's chunks, the catalog's, and
 * for a screen other than sign-in the catalog's later part.
 */
export function preloadsFor(preloads: Preloads, path: string, language: Language): PreloadFiles {
  const id = path === NOT_FOUND_PAGE ? undefined : routeIdOf(path);
  const route = (id && preloads.routes[id]) || NO_FILES;
  const catalog = preloads.catalogs[language] ?? NO_FILES;
  const later = (id && preloads.laterRoutes.includes(id) && preloads.laterCatalogs[language]) || NO_FILES;
  return {
    js: [...new Set([...route.js, ...catalog.js, ...later.js])],
    css: [...new Set([...route.css, ...catalog.css, ...later.css])],
  };
}

/** Where the per-request part of the head goes: the template's title element. */
export const BRAND_HEAD = /<title>[^<]*<\/title>/u;

/**
 * The template for every UI path and the 404 page, in every language: `<html lang>` set and the preload links
 * at the end of the head. By path, then language.
 */
export function pageTemplates(template: string, preloads: Preloads): Map<string, Record<Language, string>> {
  const pages = new Map<string, Record<Language, string>>();
  for (const path of [...new Set(UI_PATHS), NOT_FOUND_PAGE]) {
    const byLanguage = {} as Record<Language, string>;
    for (const language of LANGUAGE_CODES) {
      byLanguage[language] = template
        .replace(/<html lang="[^"]*"/u, `<html lang="${LANGUAGES[language].tag}"`)
        .replace("</head>", `${links(preloadsFor(preloads, path, language))}</head>`);
    }
    pages.set(path, byLanguage);
  }
  return pages;
}

/**
 * Title, meta description (from the catalogs, `app.description`, for search results), theme colour (the
 * browser's toolbar in the brand's page colour) and the logo's preload, by language and brand.
 */
export async function brandHeads(): Promise<Record<Language, Record<BrandId, string>>> {
  const heads = {} as Record<Language, Record<BrandId, string>>;
  for (const language of LANGUAGE_CODES) {
    const catalog = await loadCatalog(language);
    const byBrand = {} as Record<BrandId, string>;
    for (const id of BRAND_IDS) {
      const brand = BRANDS[id];
      const description = catalog.app.description.replaceAll("{{brand}}", brand.name);
      byBrand[id] =
        `<title>${escapeHtml(brand.name)}</title>` +
        `<meta name="description" content="${escapeHtml(description)}">` +
        `<meta name="theme-color" content="${escapeHtml(brand.colors.background)}">` +
        // The logo is the largest thing on the first screen (its LCP element): fetched with the entry, not once
        // the app has drawn the header.
        `<link rel="preload" as="image" href="${escapeHtml(brand.logo)}" fetchpriority="high">`;
    }
    heads[language] = byBrand;
  }
  return heads;
}
