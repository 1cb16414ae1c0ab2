import { BRANDS, type Brand, DESKTOP_APP_BRAND_PARAM, isBrandId } from "@gatehouse/contract";
import { useApp } from "../../app/context.tsx";
import { useSearchParams } from "../../app/routing.tsx";

/** The desktop-app wording of a page: generic, or naming the app (spec §2: the Enscape variant). */
export type DesktopAppWording =
  | { readonly kind: "generic"; readonly app?: undefined }
  | { readonly kind: "named"; readonly app: string };

/**
 * The wording for the client brand the provider names, else the host page's brand. The parameter changes only
 * words, never the theme or links: a link cannot re-skin a production page as another brand's (docs/decisions.md).
 */
export function desktopAppWording(hostBrand: Brand, clientBrand: string | null | undefined): DesktopAppWording {
  const brand = isBrandId(clientBrand) ? BRANDS[clientBrand] : hostBrand;
  return brand.traits.namesDesktopApp ? { kind: "named", app: brand.name } : { kind: "generic" };
}

/** The desktop-app pages' wording, from the query's client brand and the host page's brand. */
export function useDesktopAppWording(): DesktopAppWording {
  const { brand } = useApp();
  const [params] = useSearchParams();
  return desktopAppWording(brand, params.get(DESKTOP_APP_BRAND_PARAM));
}
