import { ROUTES } from "@gatehouse/contract";

/**
 * The Cross-Origin-Opener-Policy of a page the sign-in popup shows (spec §2 CLOSE). Pages are served with
 * `same-origin-allow-popups` (page-headers.ts), which cuts a popup off from an opener on another origin: the brand
 * site's window that opened sign-in would never hear from /close. So the popup's pages opt out of that isolation:
 * /close itself, and a page opened to sign in with /close as its return address (the popup's start; its in-app
 * steps stay in the same document). Every other page keeps the isolation (docs/decisions.md "The sign-in popup").
 */
export const POPUP_OPENER_POLICY = "unsafe-none";

const CLOSE_PATH = ROUTES.CLOSE.path;

/** "/Close/" and "/close" are the same page to the web app's router. */
const samePath = (path: string) => (path.replace(/\/+$/u, "") || "/").toLowerCase() === CLOSE_PATH;

/** Whether the page at `path`, asked for with `query` on `hostname`, may be showing in the sign-in popup. */
export function mayBeSignInPopup(path: string, query: Record<string, unknown>, hostname: string): boolean {
  if (samePath(path)) return true;
  const returnTo = query.return_to;
  if (typeof returnTo !== "string") return false;
  try {
    const target = new URL(returnTo, `http://${hostname}`);
    return target.hostname === hostname.toLowerCase() && samePath(target.pathname);
  } catch {
    return false;
  }
}
