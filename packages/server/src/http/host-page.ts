import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fastifyStatic from "@fastify/static";
import {
  api,
  type BrandId,
  checkReturnTo,
  FLAGS,
  type Flag,
  HOST_SETTINGS_ELEMENT_ID,
  type HostSettings,
  isBrandId,
  isLanguage,
  type Language,
  ROUTES,
  SOCIAL_PLATFORMS,
  type SocialPlatform,
  UI_PATHS,
} from "@gatehouse/contract";
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from "fastify";
import type { Config } from "../config.ts";
import { LINK_LANGUAGE_PARAM } from "../mail/links.ts";
import { MAIL_LOGOS } from "../mail/logos.ts";
import { legacyAddress, tokenOrigins } from "../settings/clients.ts";
import { isLinkedBrandHost, siteOf } from "../settings/sites.ts";
import { pageLanguage, visitorCountry } from "./client.ts";
import { sendError } from "./errors.ts";
import { BRAND_HEAD, brandHeads, NOT_FOUND_PAGE, pageTemplates, readPreloads } from "./host-head.ts";
import { sendPage } from "./page-cache.ts";
import { pageCsp } from "./page-headers.ts";
import { mayBeSignInPopup, POPUP_OPENER_POLICY } from "./popup-pages.ts";

const PLACEHOLDER = "<!--gatehouse-settings-->";

/**
 * The gateway the web app calls: `/api` on the origin the page was loaded from, since every brand host serves the
 * whole service (ARCHITECTURE.md); GATEWAY_URL when the gateway lives on another origin.
 */
export function gatewayFor(config: Pick<Config, "gatewayUrl">): string {
  return config.gatewayUrl ?? "/api";
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
  const flags = Object.fromEntries(
    FLAGS.map((flag) => [flag, (site?.flags?.[flag] ?? false) && providersOf(config).flags[flag]]),
  ) as HostSettings["flags"];
  const returnTo = typeof query.return_to === "string" ? query.return_to : undefined;
  return {
    brand,
    gatewayUrl: gatewayFor(config),
    publicUrl: config.publicUrl.origin,
    flags,
    returnHosts: config.brands.returnHosts,
    tokenOrigins: tokenOrigins(config),
    ...(config.discourse ? { forumUrl: config.discourse.origin } : {}),
    linkedSessions: isLinkedBrandHost(config, request.hostname),
    socialPlatforms: providersOf(config).social,
    language: linkLanguage(query) ?? pageLanguage(request, config, returnTo),
    country: visitorCountry(request, config),
    trialProductCode: config.trialProductCode,
    licenceHelperUrl: config.licenceHelperOrigin,
    botCheck:
      config.botCheck.provider === "altcha"
        ? { provider: "altcha" }
        : { provider: config.botCheck.provider, siteKey: config.botCheck.siteKey },
  };
}

/**
 * What IDPS_FILE sets up, worked out once per configuration (issue #11): a flag of the brands file shows its buttons
 * only when their provider is there, so no button leads to a provider that does not exist.
 */
function providersOf(config: Pick<Config, "idps">): { social: SocialPlatform[]; flags: Record<Flag, boolean> } {
  let known = providersByConfig.get(config.idps);
  if (!known) {
    const social = SOCIAL_PLATFORMS.filter((platform) => config.idps.some((idp) => idp.id === platform));
    const corporate = config.idps.some((idp) => idp.kind === "corporate");
    known = {
      social,
      flags: {
        SOCIAL_REGISTER: social.includes("google") || social.includes("facebook"),
        TRIMBLE_LOGIN: social.includes("trimble"),
        TRIMBLE_REGISTER: social.includes("trimble"),
        CORPORATE_LOGIN: corporate,
        CORPORATE_REGISTER: corporate,
      },
    };
    providersByConfig.set(config.idps, known);
  }
  return known;
}
const providersByConfig = new WeakMap<Config["idps"], ReturnType<typeof providersOf>>();

/** JSON inside a script element: `<` is escaped so no value can close the element (OWASP XSS rule 3.1). */
function settingsScript(settings: HostSettings): string {
  const json = JSON.stringify(settings).replaceAll("<", "\\u003c");
  return `<script id="${HOST_SETTINGS_ELEMENT_ID}" type="application/json">${json}</script>`;
}

/**
 * Per-page differences of the document headers (issue #13): the studio's completion page may connect to the local
 * licence helper (LICENCE_HELPER_URL's origin, and no other page may); the studio's sign-in page is kept out of
 * search engines (spec §2 "noindexed"), by header since the HTML is shared by every route.
 */
function pageOptions(path: string, config: Config): RouteShorthandOptions {
  if (path === ROUTES.SKETCHUP_LOGIN_COMPLETE.path) {
    return {
      helmet: { contentSecurityPolicy: pageCsp(config, [config.licenceHelperOrigin]) },
      // Its address carries a licence token: no copy of the page may be kept under it (ASVS 14.3.2).
      onSend: async (_request, reply, payload) => {
        reply.header("cache-control", "no-store").removeHeader("etag");
        return payload;
      },
    };
  }
  if (path === ROUTES.SKETCHUP_LOGIN.path) {
    return {
      onRequest: async (_request, reply) => {
        reply.header("x-robots-tag", "noindex");
      },
    };
  }
  return {};
}

/**
 * Where the login page sends a signed-in person whom another site sent to it with a legacy client's address and no
 * `prompt` (issue #24 §2): the web app would start the legacy flow at once and the site would get its token with
 * no action of theirs. `GET /api/legacy_token` instead, which (the redirect still counting as the other site's
 * navigation) shows the page whose button hands the token out. Undefined: serve the login page as usual.
 */
async function crossSiteLegacyArrival(
  app: FastifyInstance,
  request: FastifyRequest,
  config: Config,
): Promise<string | undefined> {
  const query = request.query as Record<string, unknown>;
  if (request.headers["sec-fetch-site"] !== "cross-site" || query.prompt !== undefined) return undefined;
  const policy = { allowedHosts: config.brands.returnHosts, selfOrigin: config.publicUrl.origin };
  const address = typeof query.return_to === "string" ? checkReturnTo(query.return_to, policy) : undefined;
  if (!address || !legacyAddress(config, address) || !(await app.readSession(request))) return undefined;
  return `/api${api.legacyToken.path}?${new URLSearchParams({ continue: address })}`;
}

/** The brand logos mail shows by absolute address (mail/logos.ts). */
const MAIL_LOGO_PATHS: ReadonlySet<string> = new Set(Object.values(MAIL_LOGOS).map((logo) => logo.path));

/**
 * Mail shows its brand's logo from the brand's origin inside whatever page shows the mail (a webmail, the dev
 * mailbox on another brand's host): these public images alone may be embedded cross-origin; every other response
 * keeps helmet's same-origin Cross-Origin-Resource-Policy.
 */
function shareMailLogos(app: FastifyInstance): void {
  app.addHook("onSend", async (request, reply) => {
    if (MAIL_LOGO_PATHS.has(request.url.split("?")[0] ?? ""))
      reply.header("cross-origin-resource-policy", "cross-origin");
  });
}

/** Requests for the compressed forms themselves: the files are served under their own names only. */
const PRECOMPRESSED = /\.(?:br|gz)$/u;

/**
 * Serves the built SPA: its assets from disk, and its HTML, with the page settings written in, for every UI
 * route of spec §2. Any other path gets the same HTML with status 404, and the SPA shows its 404 page.
 */
export async function registerHostPage(app: FastifyInstance, config: Config): Promise<void> {
  const indexFile = join(config.webDist, "index.html");
  const template = existsSync(indexFile) ? readFileSync(indexFile, "utf8") : undefined;

  if (template) {
    shareMailLogos(app);
    await app.register(fastifyStatic, {
      root: config.webDist,
      index: false,
      wildcard: false,
      // The build writes .br and .gz beside every text asset (issue #9); the best one the browser takes is sent
      // with Content-Encoding, the asset's own Content-Type and Vary: Accept-Encoding, and the original otherwise.
      preCompressed: true,
      allowedPath: (path) => path !== "/index.html" && !PRECOMPRESSED.test(path),
      setHeaders: (res, path) => {
        if (path.includes("/assets/")) res.header("cache-control", "public, max-age=31536000, immutable");
      },
    });
  }

  const pages = template ? pageTemplates(template, readPreloads(config.webDist)) : undefined;
  const heads = await brandHeads();

  const page = (path: string, status: number) => async (request: FastifyRequest, reply: FastifyReply) => {
    const confirm = path === ROUTES.LOGIN.path ? await crossSiteLegacyArrival(app, request, config) : undefined;
    if (confirm) return reply.header("cache-control", "no-store").redirect(confirm, 302);
    const templates = pages?.get(path);
    if (!templates) return reply.code(503).type("text/plain").send("The web app is not built: run `npm run build`.");
    const settings = hostSettings(request, config);
    const language = settings.language as Language;
    // Replaced through functions, so no `$` in a value is read as a replacement pattern.
    const html = templates[language]
      .replace(BRAND_HEAD, () => heads[language][settings.brand])
      .replace(PLACEHOLDER, () => settingsScript(settings));
    const pathname = request.url.split("?")[0] ?? "";
    if (mayBeSignInPopup(pathname, request.query as Record<string, unknown>, request.hostname)) {
      reply.header("cross-origin-opener-policy", POPUP_OPENER_POLICY);
    }
    return sendPage(request, reply.code(status), html);
  };

  for (const path of new Set(UI_PATHS)) app.get(path, pageOptions(path, config), page(path, 200));

  app.setNotFoundHandler(async (request, reply) => {
    if (request.url.startsWith("/api/") || request.url === "/api" || request.method !== "GET") {
      return sendError(reply, "not_found");
    }
    return page(NOT_FOUND_PAGE, 404)(request, reply);
  });
}
