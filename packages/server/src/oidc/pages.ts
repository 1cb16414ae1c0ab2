import { hash, randomUUID } from "node:crypto";
import {
  type ErrorPageCode,
  englishCatalog,
  languageFromAcceptLanguage,
  languageFromTag,
  loadCatalog,
  lookup,
  ROUTES,
} from "@gatehouse/contract";
import type { FastifyBaseLogger } from "fastify";
import type { KoaContextWithOIDC } from "oidc-provider";
import type { Config } from "../config.ts";

/** The provider's errors that mean "this sign-in is gone" (an expired interaction, a lost cookie). */
const EXPIRED = new Set(["session_not_found", "interaction_not_found"]);

/** Which of our error page's codes an OAuth error shows as (spec §2 ERROR). */
export function errorPageCode(error: string | undefined, status: number): ErrorPageCode {
  if (status >= 500 || error === "server_error") return "internal_server_error";
  if (error && EXPIRED.has(error)) return "session_expired";
  return "service_request_invalid";
}

/**
 * Errors the provider cannot send back to the client (an unknown client, a redirect URI that is not registered,
 * an expired interaction) show OUR error page, never the library's HTML: a redirect to /error with our code and
 * a reference that is also in the log (ASVS 16.5.1).
 */
export function renderError(log: FastifyBaseLogger) {
  return async (ctx: KoaContextWithOIDC, out: { error?: string; error_description?: string }, error: Error) => {
    const guid = randomUUID();
    const code = errorPageCode(out.error, ctx.status);
    log.info(
      { guid, code, oauthError: out.error, detail: out.error_description, err: error.message },
      "oidc request refused",
    );
    redirect(ctx, `${ROUTES.ERROR.path}?${new URLSearchParams({ error_code: code, error_id: guid })}`);
  };
}

/** The provider's routes a browser is sent to for signing out; no program reads their answers. */
const END_SESSION_ROUTES = new Set(["end_session", "end_session_confirm", "end_session_success"]);

/**
 * The provider answers an end-session refusal (an id_token_hint it cannot verify, a post-logout address the
 * client did not register) as JSON unless the request's Accept prefers HTML. End-session is a page a browser is
 * sent to, whatever its Accept says, so its refusals always show our error page (issue #24 §2).
 */
export function endSessionErrorPages(log: FastifyBaseLogger) {
  const show = renderError(log);
  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>) => {
    await next();
    const out = ctx.body as { error?: unknown; error_description?: unknown } | undefined;
    if (!END_SESSION_ROUTES.has(ctx.oidc?.route ?? "") || ctx.status < 400 || typeof out?.error !== "string") return;
    const description = typeof out.error_description === "string" ? out.error_description : undefined;
    await show(ctx, { error: out.error, error_description: description }, new Error(description ?? out.error));
  };
}

function redirect(ctx: KoaContextWithOIDC, location: string) {
  ctx.status = 303;
  ctx.redirect(location);
}

/**
 * After an end-session without a post-logout redirect: a desktop app's browser ends on the ULA sign-out page
 * (issue #10 §4), anyone else on the sign-in page.
 */
export function postLogoutSuccessSource(_config: Config) {
  return async (ctx: KoaContextWithOIDC) => {
    const native = ctx.oidc.client?.applicationType === "native";
    redirect(ctx, native ? ROUTES.ULA_LOGOUT_SUCCESS.path : ROUTES.LOGIN.path);
  };
}

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const escapeHtml = (text: string) => text.replace(/[&<>"']/gu, (c) => HTML_ESCAPES[c] ?? c);

/**
 * The end-session confirmation. A request with a valid id_token_hint for this session's person signs out at once
 * (the site proved it speaks for that sign-in; the form submits itself); without one, the person confirms with
 * a button, so a foreign page cannot sign them out by a link (RP-Initiated Logout 1.0 §2). Confirming signs out
 * of the gateway and every site (`logout=yes`; oidc/mount.ts ends the gateway session).
 */
export async function logoutSource(ctx: KoaContextWithOIDC, form: string): Promise<void> {
  const language =
    languageFromTag(String(ctx.oidc.params?.ui_locales ?? "").split(" ")[0] ?? "") ??
    languageFromAcceptLanguage(ctx.get("accept-language")) ??
    "en";
  const catalog = await loadCatalog(language);
  const text = (key: string) => escapeHtml(lookup(catalog, key) ?? lookup(englishCatalog, key) ?? key);
  const hint = ctx.oidc.entities.IdTokenHint as { payload?: { sub?: string } } | undefined;
  const automatic = hint?.payload?.sub !== undefined && hint.payload.sub === ctx.oidc.session?.accountId;
  const fields = form.replace(
    "</form>",
    `<input type="hidden" name="logout" value="yes"/><button type="submit" autofocus>${text("titles.signOut")}</button></form>`,
  );
  const script = automatic ? "document.forms[0].submit();" : "";
  ctx.type = "html";
  ctx.body = `<!doctype html>
<html lang="${language}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${text("titles.signOut")}</title></head>
<body><main><h1>${text("titles.signOut")}</h1>${automatic ? `<p>${text("logout.inProgress")}</p>` : ""}${fields}</main>${
    script ? `<script>${scriptWithHash(ctx, script)}</script>` : ""
  }</body></html>`;
}

/** Allows exactly this inline script in the page's CSP (oidc/mount.ts sets `script-src 'self'`). */
function scriptWithHash(ctx: KoaContextWithOIDC, script: string): string {
  const csp = ctx.response.get("content-security-policy");
  const digest = hash("sha256", script, "base64");
  if (csp) ctx.set("content-security-policy", csp.replace("script-src 'self'", `script-src 'self' 'sha256-${digest}'`));
  return script;
}
