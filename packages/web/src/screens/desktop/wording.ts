import { BRANDS, type Brand, DESKTOP_APP_BRAND_PARAM, isBrandId } from "@gatehouse/contract";
import { useApp } from "../../app/context.tsx";
import { useSearchParams } from "../../app/routing.tsx";

/**
 * The desktop-app wording of a page: generic, or naming the app (spec §2: the Enscape variant); `brand` is the
 * brand the app belongs to, whose site the signed-in page offers (issue #25).
 */
export type DesktopAppWording =
  | { readonly kind: "generic"; readonly app?: undefined; readonly brand: Brand }
  | { readonly kind: "named"; readonly app: string; readonly brand: Brand };

/**
 * The wording for the client brand the provider names, else the host page's brand. The parameter changes the words
 * and the brand site offered (one of ours, from the fixed brand table), never the theme: a link cannot re-skin a
 * production page as another brand's (docs/decisions.md).
 */
export function desktopAppWording(hostBrand: Brand, clientBrand: string | null | undefined): DesktopAppWording {
  const brand = isBrandId(clientBrand) ? BRANDS[clientBrand] : hostBrand;
  return brand.traits.namesDesktopApp ? { kind: "named", app: brand.name, brand } : { kind: "generic", brand };
}

/** The desktop-app pages' wording, from the query's client brand and the host page's brand. */
export function useDesktopAppWording(): DesktopAppWording {
  const { brand } = useApp();
  const [params] = useSearchParams();
  return desktopAppWording(brand, params.get(DESKTOP_APP_BRAND_PARAM));
}
