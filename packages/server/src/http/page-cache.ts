import { createHash } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";

/**
 * How the host page may be cached (issue #9, docs/decisions.md "The host page is cacheable"). The HTML carries no
 * session data — only the brand, flags, language, the visitor's country and the gateway's address, all chosen from
 * the request — so it need not be `no-store`, which would keep every page out of the back/forward cache. It is
 * `private, no-cache`: the browser revalidates it at every use, and a shared cache never stores it (it varies by
 * host, cookie, Accept-Language, query and the proxy's country header). A strong ETag of the exact HTML sent makes
 * that revalidation a 304 without a body when nothing changed. /api answers stay `no-store` (http/session.ts).
 */
export const PAGE_CACHE_CONTROL = "private, no-cache";

/** A strong validator of the page: a SHA-256 of its bytes (RFC 9110 §8.8.3). */
export function etagOf(html: string): string {
  return `"${createHash("sha256").update(html).digest("base64url")}"`;
}

/** If-None-Match compares weakly (RFC 9110 §13.1.2): `W/` is ignored, `*` matches any current page. */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(",").some((tag) => {
    const candidate = tag.trim().replace(/^W\//u, "");
    return candidate === "*" || candidate === etag;
  });
}

/** Sends a host page with its validator and cache policy, or 304 when the browser's copy is the same. */
export function sendPage(request: FastifyRequest, reply: FastifyReply, html: string): FastifyReply {
  const etag = etagOf(html);
  reply.header("cache-control", PAGE_CACHE_CONTROL).header("etag", etag);
  if (reply.statusCode === 200 && matchesIfNoneMatch(request.headers["if-none-match"], etag)) {
    return reply.code(304).send();
  }
  return reply.type("text/html; charset=utf-8").send(html);
}
