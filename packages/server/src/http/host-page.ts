import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fastifyStatic from "@fastify/static";
import {
  BRANDS,
  type BrandId,
  FLAGS,
  HOST_SETTINGS_ELEMENT_ID,
  type HostSettings,
  isBrandId,
  isLanguage,
  LANGUAGES,
  type Language,
  UI_PATHS,
} from "@gatehouse/contract";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { type Config, siteOf } from "../config.ts";
import { LINK_LANGUAGE_PARAM } from "../mail/links.ts";
import { pageLanguage, visitorCountry } from "./client.ts";
import { sendError } from "./errors.ts";

const PLACEHOLDER = "<!--gatehouse-settings-->";

/**
 * The gateway the web app calls: `/api` on the origin the page was loaded from, since every brand host serves the
 * whole service (ARCHITECTURE.md); GATEWAY_URL when the gateway lives on another origin.
 */
export function gatewayFor(config: Pick<Config, "gatewayUrl">): string {
  return config.gatewayUrl ?? "/api";
}

/** The page's CSP connect-src: its own origin, and a separate gateway's origin when one is configured. */
export function connectSources(config: Pick<Config, "gatewayUrl">): string[] {
  return config.gatewayUrl ? ["'self'", new URL(config.gatewayUrl).origin] : ["'self'"];
}

/** A mailed link's language (`?lang=`, mail/links.ts): the page opens in the language the mail was written in. */
function linkLanguage(query: Record<string, unknown>): Language | undefined {
  const value = query[LINK_LANGUAGE_PARAM];
  return isLanguage(value) ? value : undefined;
}

/** The settings a page is served with, chosen by the request's host name (ARCHITECTURE.md "Host page settings"). */
export function hostSettings(request: FastifyRequest, config: Config): HostSettings {
  const site = siteOf(config, request.hostname);
  const query = request.query as Record<string, unknown>;
  const theme = !config.production && isBrandId(query.theme) ? query.theme : undefined;
  const brand: BrandId = theme ?? site?.brand ?? config.brands.defaultBrand;
  const flags = Object.fromEntries(FLAGS.map((flag) => [flag, site?.flags?.[flag] ?? false])) as HostSettings["flags"];
  const returnTo = typeof query.return_to === "string" ? query.return_to : undefined;
  return {
    brand,
    gatewayUrl: gatewayFor(config),
    publicUrl: config.publicUrl.origin,
    flags,
    returnHosts: config.brands.returnHosts,
    language: linkLanguage(query) ?? pageLanguage(request, config, returnTo),
    country: visitorCountry(request, config),
    botCheck:
      config.botCheck.provider === "altcha"
        ? { provider: "altcha" }
        : { provider: config.botCheck.provider, siteKey: config.botCheck.siteKey },
  };
}

/** JSON inside a script element: `<` is escaped so no value can close the element (OWASP XSS rule 3.1). */
function settingsScript(settings: HostSettings): string {
  const json = JSON.stringify(settings).replaceAll("<", "\\u003c");
  return `<script id="${HOST_SETTINGS_ELEMENT_ID}" type="application/json">${json}</script>`;
}

/**
 * Serves the built SPA: its assets from disk, and its HTML, with the page settings written in, for every UI
 * route of spec §2. Any other path gets the same HTML with status 404, and the SPA shows its 404 page.
 */
export async function registerHostPage(app: FastifyInstance, config: Config): Promise<void> {
  const indexFile = join(config.webDist, "index.html");
  const template = existsSync(indexFile) ? readFileSync(indexFile, "utf8") : undefined;

  if (template) {
    await app.register(fastifyStatic, {
      root: config.webDist,
      index: false,
      wildcard: false,
      allowedPath: (path) => path !== "/index.html",
      setHeaders: (res, path) => {
        if (path.includes("/assets/")) res.header("cache-control", "public, max-age=31536000, immutable");
      },
    });
  }

  const page = (status: number) => async (request: FastifyRequest, reply: FastifyReply) => {
    if (!template) return reply.code(503).type("text/plain").send("The web app is not built: run `npm run build`.");
    const settings = hostSettings(request, config);
    const html = template
      .replace(PLACEHOLDER, settingsScript(settings))
      .replace(/<html lang="[^"]*"/u, `<html lang="${LANGUAGES[settings.language as keyof typeof LANGUAGES].tag}"`)
      .replace(/<title>[^<]*<\/title>/u, `<title>${BRANDS[settings.brand].name}</title>`);
    return reply.code(status).header("cache-control", "no-store").type("text/html; charset=utf-8").send(html);
  };

  for (const path of new Set(UI_PATHS)) app.get(path, page(200));

  app.setNotFoundHandler(async (request, reply) => {
    if (request.url.startsWith("/api/") || request.url === "/api" || request.method !== "GET") {
      return sendError(reply, "not_found");
    }
    return page(404)(request, reply);
  });
}
