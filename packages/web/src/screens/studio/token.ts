import { useLayoutEffect, useState } from "react";

/** The query parameter the completion page receives its token in (spec §2 SKETCHUP_LOGIN_COMPLETE). */
const TOKEN_PARAM = "access_token";
const STORE_KEY = "gatehouse.studioToken";

/** Whether this document is a reload (or Back/Forward) of one already open, rather than a new arrival. */
function reopened(): boolean {
  const [entry] = performance.getEntriesByType("navigation") as PerformanceNavigationTiming[];
  return entry?.type === "reload" || entry?.type === "back_forward";
}

/**
 * The access token of the studio's completion page, read once and taken out of the address bar at once
 * (`history.replaceState`), as the mailed-code pages do (app/mailed-code.ts; ASVS 14.2.1): it stays out of the
 * history, bookmarks and shared screens. It is kept in this tab's sessionStorage, so a reload still activates; a
 * new arrival without one (the gateway could not mint it) never falls back on an older one.
 */
export function useStudioToken(): string | null {
  const [token] = useState(() => {
    const fresh = new URL(window.location.href).searchParams.get(TOKEN_PARAM);
    if (fresh !== null) return fresh || null;
    return reopened() ? sessionStorage.getItem(STORE_KEY) : null;
  });
  useLayoutEffect(() => {
    const url = new URL(window.location.href);
    const fresh = url.searchParams.get(TOKEN_PARAM);
    if (fresh === null) return;
    if (fresh) sessionStorage.setItem(STORE_KEY, fresh);
    else sessionStorage.removeItem(STORE_KEY);
    url.searchParams.delete(TOKEN_PARAM);
    window.history.replaceState(window.history.state, "", `${url.pathname}${url.search}${url.hash}`);
  }, []);
  return token;
}
