import { BRANDS, type Brand, type HostSettings, type ReturnPolicy } from "@gatehouse/contract";
import { createContext, useContext } from "react";

export interface AppContextValue {
  settings: HostSettings;
  brand: Brand;
  returnPolicy: ReturnPolicy;
}

export const AppContext = createContext<AppContextValue | undefined>(undefined);

/**
 * `selfOrigin` is the origin the page was loaded from: every brand host serves the whole service, so return
 * paths and internal links resolve there, not on PUBLIC_URL.
 */
export function appContextFor(settings: HostSettings, selfOrigin: string): AppContextValue {
  return {
    settings,
    brand: BRANDS[settings.brand],
    returnPolicy: { allowedHosts: settings.returnHosts, selfOrigin },
  };
}

/** The page settings, the brand record and the return-address policy. */
export function useApp(): AppContextValue {
  const value = useContext(AppContext);
  if (!value) throw new Error("useApp outside AppContext");
  return value;
}
