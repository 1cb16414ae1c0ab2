import { constants } from "node:zlib";
import fastifyCompress from "@fastify/compress";
import type { FastifyInstance, onSendHookHandler, RouteOptions } from "fastify";

/**
 * Below this many bytes an answer goes out as it is (docs/decisions.md "Compressed answers"): it fits one TCP
 * segment with its headers either way, so compressing saves no packet and no round trip, while brotli's set-up
 * alone costs more CPU than the whole `GET /api/session` request.
 */
export const COMPRESS_THRESHOLD_BYTES = 1024;
/** Brotli's quality for answers made at request time: 4 compresses within a few percent of 11 at a tiny cost. */
const DYNAMIC_BROTLI_QUALITY = 4;
const ENCODINGS: ("br" | "gzip")[] = ["br", "gzip"];
/** The answers we make that compress: JSON, HTML and other text. */
const COMPRESSIBLE = /^(?:text\/|application\/(?:json|javascript|xml)|image\/svg\+xml)/iu;

/**
 * API answers and the host page leave brotli- or gzip-compressed, as the client asks (issue #9). Answers that
 * already carry a Content-Encoding (the web app's files, precompressed at build time) are left alone; request
 * bodies are never inflated (no zip bomb behind the body limit). Registered before every route: the plugin
 * attaches its hooks to the routes declared after it.
 */
export async function registerCompression(app: FastifyInstance): Promise<void> {
  await app.register(fastifyCompress, {
    encodings: ENCODINGS,
    threshold: COMPRESS_THRESHOLD_BYTES,
    brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: DYNAMIC_BROTLI_QUALITY } },
    globalDecompression: false,
  });
  // Declared after the plugin's own, so its hook runs after the plugin's onSend.
  app.addHook("onRoute", (route: RouteOptions) => {
    if (route.compress === false) return;
    route.onSend = [...(route.onSend === undefined ? [] : [route.onSend].flat()), negotiatedHeaders];
  });
}

/**
 * What the plugin leaves out: an answer large enough to be compressed depends on Accept-Encoding even when this
 * client got it uncompressed, so a shared cache must key it by that header too (Vary); and a compressed answer is
 * another representation of the same resource, so a strong ETag made from the uncompressed bytes becomes weak
 * (RFC 9110 §8.8.1), as nginx does.
 */
const negotiatedHeaders: onSendHookHandler = (_request, reply, payload, done) => {
  const encoded = reply.getHeader("content-encoding");
  if (encoded === "br" || encoded === "gzip") {
    const etag = reply.getHeader("etag");
    if (typeof etag === "string" && etag.startsWith('"')) reply.header("etag", `W/${etag}`);
  } else if (
    encoded === undefined &&
    COMPRESSIBLE.test(String(reply.getHeader("content-type") ?? "")) &&
    (typeof payload === "string" || Buffer.isBuffer(payload)) &&
    Buffer.byteLength(payload) >= COMPRESS_THRESHOLD_BYTES
  ) {
    addVary(reply, "accept-encoding");
  }
  done(null, payload);
};

function addVary(
  reply: { getHeader(name: string): unknown; header(name: string, value: string): unknown },
  name: string,
) {
  const current = reply.getHeader("vary");
  const value = Array.isArray(current) ? current.join(", ") : typeof current === "string" ? current : "";
  if (
    value === "*" ||
    value
      .toLowerCase()
      .split(/\s*,\s*/u)
      .includes(name)
  )
    return;
  reply.header("vary", value ? `${value}, ${name}` : name);
}
