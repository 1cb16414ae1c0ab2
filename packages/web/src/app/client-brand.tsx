import { BRANDS, type Brand, type BrandId, isBrandId, ROUTES, routeUrl } from "@gatehouse/contract";
import { type ReactNode, useEffect, useMemo, useRef } from "react";
import { applyTheme } from "../brands/theme.ts";
import { AppContext, type AppContextValue } from "./context.tsx";
import { useLocation } from "./routing.tsx";

/**
 * The client brand a site's or app's sign-in carries through the pages it leads to (issue #24 §2): a query
 * parameter of /service_login's own address, which every page of the flow holds as its `return_to` (Create
 * account, Forgot your password?, corporate sign-in, the mailed activation link), so a reload or another tab keeps
 * it. Only a theme among BRANDS: never trusted for anything else (docs/decisions.md "The client's brand").
 */
export const CLIENT_BRAND_PARAM = "client_brand";

/** The return address of a sign-in started at /service_login for a client of this brand. */
export function serviceLoginReturn(brand: BrandId): string {
  return routeUrl("SERVICE_LOGIN", { [CLIENT_BRAND_PARAM]: brand });
}

/** A known brand id named by a /service_login address on this origin, else undefined. */
function brandOfServiceLogin(address: string, origin: string): BrandId | undefined {
  let url: URL;
  try {
    url = new URL(address, origin);
  } catch {
    return undefined;
  }
  if (url.origin !== origin || url.pathname !== ROUTES.SERVICE_LOGIN.path) return undefined;
  const brand = url.searchParams.get(CLIENT_BRAND_PARAM);
  return isBrandId(brand) ? brand : undefined;
}

/**
 * The client brand of the page at this address: /service_login's own parameter, or that of a `return_to` leading
 * back to /service_login on this origin. Any other return address, or an unknown id, names none.
 */
export function clientBrandAt(location: { pathname: string; search: string }, origin: string): BrandId | undefined {
  const params = new URLSearchParams(location.search);
  if (location.pathname === ROUTES.SERVICE_LOGIN.path) {
    const own = params.get(CLIENT_BRAND_PARAM);
    return isBrandId(own) ? own : undefined;
  }
  const returnTo = params.get("return_to");
  return returnTo ? brandOfServiceLogin(returnTo, origin) : undefined;
}

/** The brand a page shows: the client's, while the page belongs to its sign-in, else the host page's. */
export function brandAt(hostBrand: Brand, location: { pathname: string; search: string }, origin: string): Brand {
  const client = clientBrandAt(location, origin);
  return client ? BRANDS[client] : hostBrand;
}

/**
 * Gives the app the brand of the current address and themes the page with it when it changes (main.tsx themes the
 * first page before rendering, so nothing flashes in the host's colours).
 */
export function ClientBranded({ context, children }: { context: AppContextValue; children: ReactNode }) {
  const location = useLocation();
  const brand = brandAt(context.brand, location, context.returnPolicy.selfOrigin);
  const applied = useRef(brand.id);
  useEffect(() => {
    if (applied.current === brand.id) return;
    applied.current = brand.id;
    applyTheme(brand);
  }, [brand]);
  const value = useMemo(() => (brand === context.brand ? context : { ...context, brand }), [context, brand]);
  return <AppContext value={value}>{children}</AppContext>;
}
