import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import { Negotiator } from "@fastify/accept-negotiator";
import fastifySwagger from "@fastify/swagger";
import type { FastifyInstance, FastifyRequest, onSendHookHandler } from "fastify";
import fp from "fastify-plugin";
import type { Config } from "../config.ts";
import { openapiOptions } from "../http/openapi.ts";
import { matchesIfNoneMatch } from "../http/page-cache.ts";
import { DENIED_FEATURES } from "../http/page-headers.ts";
import { CSRF_HEADER } from "../http/session.ts";
import { siteOrigins } from "../settings/sites.ts";

/** The document and the viewer's own files change only with a deploy: browsers and shared caches keep them a while. */
const PUBLIC_CACHE = "public, max-age=300";
/** Swagger UI's files change only with its version: kept an hour, then revalidated by their ETag. */
const ASSET_CACHE = "public, max-age=3600";
const VIEWER_DIR = join(dirname(fileURLToPath(import.meta.url)), "../http/api-docs");
const SWAGGER_UI_DIR = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));

/**
 * The viewer page's CSP (ASVS 3.4.3), narrower than the pages' own: scripts and styles from our origin only (no
 * 'unsafe-inline' for either: Swagger UI sets its styles through the DOM, which a CSP does not govern), the document
 * and "Try it out" calls to our origin, Swagger UI's icons as data: images. Nothing may frame it, and it sets no base
 * and submits no form.
 */
export const VIEWER_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");
const PERMISSIONS_POLICY = DENIED_FEATURES.map((feature) => `${feature}=()`).join(", ");

/**
 * `GET /api/openapi.json` (the OpenAPI 3.1 document, http/openapi.ts) and `GET /api/docs` (Swagger UI over it, its
 * files served from node_modules, nothing from a CDN). Wrapped with fastify-plugin so @fastify/swagger sees every
 * route declared after it: app.ts registers it before the routes it describes.
 */
export const openapiRoutes = fp(
  async (app: FastifyInstance, { config }: { config: Config }) => {
    await app.register(fastifySwagger, openapiOptions(config));
    await app.register(documentRoutes, { config });
  },
  { name: "gatehouse-openapi" },
);

async function documentRoutes(app: FastifyInstance, { config }: { config: Config }) {
  // The gateway's guard hands every new visitor of an /api route a session cookie and its CSRF token; answers that
  // browsers and shared caches keep (public) carry neither, or a cache would hand one visitor's session to the
  // next (ASVS 8.1.1).
  app.addHook("onSend", noSessionInPublicAnswers);

  // Built at the first request (@fastify/swagger keeps it), serialised once per origin it names.
  const serialized = new Map<string, string>();
  app.get("/api/openapi.json", async (request, reply) => {
    const origin = servedOrigin(request, config);
    let json = serialized.get(origin);
    if (json === undefined) {
      json = JSON.stringify({ ...app.swagger(), servers: [{ url: origin }] });
      serialized.set(origin, json);
    }
    return reply.header("cache-control", PUBLIC_CACHE).type("application/json; charset=utf-8").send(json);
  });

  const [page, viewer, styles] = await Promise.all(
    ["index.html", "viewer.js", "viewer.css"].map((file) => readFile(join(VIEWER_DIR, file), "utf8")),
  );
  app.get("/api/docs", async (_request, reply) =>
    reply
      .headers({
        "cache-control": PUBLIC_CACHE,
        "content-security-policy": VIEWER_CSP,
        "permissions-policy": PERMISSIONS_POLICY,
        "cross-origin-opener-policy": "same-origin",
      })
      .type("text/html; charset=utf-8")
      .send(page),
  );
  app.get("/api/docs/viewer.js", async (_request, reply) =>
    reply.header("cache-control", PUBLIC_CACHE).type("text/javascript; charset=utf-8").send(viewer),
  );
  app.get("/api/docs/viewer.css", async (_request, reply) =>
    reply.header("cache-control", PUBLIC_CACHE).type("text/css; charset=utf-8").send(styles),
  );

  // Only the two files the page loads, not the package's demo page (which points at a third-party document).
  const encodings = new Negotiator<"br" | "gzip">({ supportedValues: ["br", "gzip"] });
  for (const [file, type] of [
    ["swagger-ui-bundle.js", "text/javascript; charset=utf-8"],
    ["swagger-ui.css", "text/css; charset=utf-8"],
  ] as const) {
    const load = encodedOnce(join(SWAGGER_UI_DIR, file));
    app.get(`/api/docs/${file}`, { compress: false }, async (request, reply) => {
      const asset = await load();
      reply.header("cache-control", ASSET_CACHE).header("etag", `W/${asset.etag}`).header("vary", "accept-encoding");
      if (matchesIfNoneMatch(request.headers["if-none-match"], asset.etag)) return reply.code(304).send();
      const accepted = request.headers["accept-encoding"];
      const encoding = typeof accepted === "string" ? encodings.negotiate(accepted) : null;
      reply.type(type);
      return encoding ? reply.header("content-encoding", encoding).send(asset[encoding]) : reply.send(asset.identity);
    });
  }
}

const noSessionInPublicAnswers: onSendHookHandler = async (_request, reply, payload) => {
  reply.removeHeader("set-cookie").removeHeader(CSRF_HEADER);
  return payload;
};

/**
 * The origin the document names as its server: the one it was asked on when that is one of ours (PUBLIC_URL, a
 * brand host, GATEWAY_URL), so the viewer's "Try it out" stays on its own origin; PUBLIC_URL's otherwise. Never a
 * Host header taken as it is.
 */
function servedOrigin(request: FastifyRequest, config: Config): string {
  const asked = `${config.publicUrl.protocol}//${request.host}`.toLowerCase();
  const ours = config.gatewayUrl ? [...siteOrigins(config), new URL(config.gatewayUrl).origin] : siteOrigins(config);
  return ours.includes(asked) ? asked : config.publicUrl.origin;
}

interface Encoded {
  etag: string;
  identity: Buffer;
  br: Buffer;
  gzip: Buffer;
}

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/**
 * A Swagger UI file, read and compressed once, at its first request: the bundle is 1.7 MB, and compressing it for
 * every visit would cost a tenth of a second of CPU each time (brotli at quality 6: 400 KB in about 90 ms here,
 * in the thread pool, off the event loop).
 */
function encodedOnce(path: string): () => Promise<Encoded> {
  let encoded: Promise<Encoded> | undefined;
  const encode = async (): Promise<Encoded> => {
    const identity = await readFile(path);
    const [br, gz] = await Promise.all([
      brotliAsync(identity, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: 6,
          [constants.BROTLI_PARAM_SIZE_HINT]: identity.length,
        },
      }),
      gzipAsync(identity),
    ]);
    return { etag: `"${createHash("sha256").update(identity).digest("base64url")}"`, identity, br, gzip: gz };
  };
  return () => {
    encoded ??= encode().catch((error: unknown) => {
      encoded = undefined;
      throw error;
    });
    return encoded;
  };
}
