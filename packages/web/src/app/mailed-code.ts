import { useLayoutEffect, useState } from "react";

/** The query parameter mailed links carry their one-time code in (spec §2: activate, reset, set-up, delete). */
const CODE_PARAM = "code";
const STORE_PREFIX = "gatehouse.mailedCode:";

const storeKey = (pathname: string) => `${STORE_PREFIX}${pathname}`;

function codeInAddress(): string | null {
  return new URL(window.location.href).searchParams.get(CODE_PARAM);
}

/**
 * The one-time code of a page opened from a mailed link. It is read once and taken out of the address bar at
 * once (`history.replaceState`), so it stays out of the history, bookmarks, shared screens and every later
 * request; the pages themselves send no Referer at all (helmet's `Referrer-Policy: no-referrer`, which no meta
 * tag overrides) — ASVS 14.2.1 (no secrets in URLs that travel) and 3.4.5 (referrer policy). It is kept in
 * this tab's sessionStorage under the page's path, so a reload still shows the link's real state rather than
 * "missing code"; the storage dies with the tab and never leaves the browser.
 */
export function useMailedCode(): string | null {
  const [code] = useState(() => codeInAddress() ?? sessionStorage.getItem(storeKey(window.location.pathname)));
  useLayoutEffect(() => {
    const url = new URL(window.location.href);
    const fresh = url.searchParams.get(CODE_PARAM);
    if (fresh === null) return;
    sessionStorage.setItem(storeKey(url.pathname), fresh);
    url.searchParams.delete(CODE_PARAM);
    // The router's own state entry is kept, so Back and Forward still line up with its history.
    window.history.replaceState(window.history.state, "", `${url.pathname}${url.search}${url.hash}`);
  }, []);
  return code;
}
