import { useEffect, useMemo } from "react";
import {
  navigate as historyNavigate,
  useHistoryState,
  useLocationProperty,
  usePathname,
  useSearch,
} from "wouter/use-browser-location";

/**
 * The app's routing vocabulary on top of wouter's browser-location store (issue #9: ~2.5 KB brotli instead of
 * React Router's 24.5 KB data mode; docs/decisions.md). Screens use these names only, so the router underneath
 * stays one file's business. wouter's Link is used as is: a plain <a href> that navigates in-app on a plain click.
 */
export { Link } from "wouter";

export interface AppLocation {
  pathname: string;
  search: string;
  hash: string;
  /** The history entry's state (registration's step, the registered address). */
  state: unknown;
}

export type To = string | { pathname: string; search?: string; hash?: string };
export interface NavigateOptions {
  replace?: boolean;
  state?: unknown;
}

const currentHash = () => window.location.hash;

export function useLocation(): AppLocation {
  const pathname = usePathname();
  const search = useSearch();
  const hash = useLocationProperty(currentHash, currentHash);
  const state = useHistoryState<unknown>();
  return useMemo(() => ({ pathname, search, hash, state }), [pathname, search, hash, state]);
}

function href(to: To): string {
  return typeof to === "string" ? to : `${to.pathname}${to.search ?? ""}${to.hash ?? ""}`;
}

/** Goes to an address in the app (pushed, or replacing the entry), or moves in the history by a number. */
export function navigate(to: To | number, options: NavigateOptions = {}): void {
  if (typeof to === "number") window.history.go(to);
  else historyNavigate(href(to), { replace: options.replace ?? false, state: options.state ?? null });
}

export function useNavigate(): typeof navigate {
  return navigate;
}

/** The address's query, parsed. */
export function useSearchParams(): [URLSearchParams] {
  const search = useSearch();
  return [useMemo(() => new URLSearchParams(search), [search])];
}

/** Sends the visitor elsewhere once rendered, replacing the current entry (a screen's "not for you" answer). */
export function Navigate({ to }: { to: To; replace: true }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return null;
}
