import { randomBytes } from "node:crypto";
import { englishCatalog, LANGUAGES, type Language, loadCatalog, lookup } from "@gatehouse/contract";
import type { FastifyReply } from "fastify";

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const escapeHtml = (text: string) => text.replace(/[&<>"']/gu, (c) => HTML_ESCAPES[c] ?? c);

/** 128 random bits for the one inline style element (CSP nonce). */
const NONCE_BYTES = 16;

const STYLE = `body{margin:0;font:16px/1.5 system-ui,sans-serif;color:#1b1b1f;background:#f4f5f7}
main{max-width:28rem;margin:12vh auto;padding:2rem;background:#fff;border-radius:8px}
h1{font-size:1.4rem;margin:0 0 1rem}button{font:inherit;padding:.7rem 1.2rem;border:0;border-radius:4px;
background:#0b57d0;color:#fff;cursor:pointer;width:100%}button:focus-visible{outline:3px solid #1b1b1f;outline-offset:2px}`;

/** What the page says, where it sends the person, and in which language. */
export interface ContinuePage {
  language: Language;
  /** The legacy client's name (or its host), shown to the person. */
  site: string;
  /** The form's action: `GET /api/legacy_token`. */
  action: string;
  /** The exact registered address, handed back as `continue` when the person clicks. */
  address: string;
}

/**
 * The page a cross-site navigation to `GET /api/legacy_token` gets instead of a token (issue #24 §2): a heading and
 * a button "Continue to <site>". The token is not in it; the button submits a GET form on our own origin, which the
 * browser marks `Sec-Fetch-Site: same-origin`, so only the person's click on this page hands the token out. No
 * script at all; no frame may show it (frame-ancestors 'none', ASVS 3.4.6, against clickjacking); the form may
 * only go to us and, by the redirect that follows, to the site's origin (CSP form-action covers redirects).
 */
export async function sendContinuePage(reply: FastifyReply, page: ContinuePage): Promise<FastifyReply> {
  const catalog = await loadCatalog(page.language);
  const text = (key: string) =>
    escapeHtml(lookup(catalog, key) ?? lookup(englishCatalog, key) ?? key).replaceAll(
      "{{site}}",
      escapeHtml(page.site),
    );
  const nonce = randomBytes(NONCE_BYTES).toString("base64");
  const csp = [
    "default-src 'none'",
    `style-src 'nonce-${nonce}'`,
    `form-action 'self' ${new URL(page.address).origin}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join("; ");
  const html = `<!doctype html>
<html lang="${LANGUAGES[page.language].tag}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex">
<title>${text("legacyContinue.heading")}</title><style nonce="${nonce}">${STYLE}</style></head>
<body><main><h1>${text("legacyContinue.heading")}</h1><p>${text("legacyContinue.intro")}</p>
<form method="get" action="${escapeHtml(page.action)}"><input type="hidden" name="continue" value="${escapeHtml(page.address)}">
<button type="submit">${text("legacyContinue.button")}</button></form></main></body></html>`;
  return reply
    .code(200)
    .header("content-security-policy", csp)
    .header("x-frame-options", "DENY")
    .header("cache-control", "no-store")
    .header("referrer-policy", "no-referrer")
    .type("text/html; charset=utf-8")
    .send(html);
}
