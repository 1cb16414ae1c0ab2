/**
 * Which requests are the gateway API's. A matched request is decided by the route it matched, which the router
 * found after decoding the target (escapes, absolute form); an unmatched one by its canonical path.
 */
export const API_BASE = "/api";

/** A route declared under the gateway base. Decided from the declaration, never from a request's spelling. */
export function isApiRoute(url: string | undefined): boolean {
  return url === API_BASE || (url?.startsWith(`${API_BASE}/`) ?? false);
}

/** How many layers of percent-escapes are undone when classifying an unmatched path (`%2561` → `%61` → `a`). */
const MAX_DECODES = 4;
const ASCII_ESCAPE = /%[0-7][0-9a-f]/iu;
const ASCII_ESCAPE_ALL = /%([0-7][0-9a-f])/giu;

/**
 * The path a request target names however it is spelled, to classify requests no route matched: an absolute-form
 * target loses its scheme and authority, query and fragment go, escaped ASCII is unescaped, backslashes read as
 * slashes, empty and `.` segments dropped, `..` resolved, letters lower-cased. Deliberately generous: it only
 * decides whether a 404 is the API's (error object) or the web app's (its 404 page).
 */
export function canonicalPath(target: string): string {
  let path = target.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/iu, "").replace(/[?#].*$/su, "");
  // ASCII escapes are undone one by one, so a stray or malformed escape elsewhere cannot stop the rest.
  for (let i = 0; i < MAX_DECODES && ASCII_ESCAPE.test(path); i++) {
    path = path.replace(ASCII_ESCAPE_ALL, (_, code: string) => String.fromCharCode(Number.parseInt(code, 16)));
  }
  const segments: string[] = [];
  for (const segment of path.replaceAll("\\", "/").split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") segments.pop();
    else segments.push(segment);
  }
  return `/${segments.join("/")}`.toLowerCase();
}
