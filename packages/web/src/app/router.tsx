import { ROUTE_IDS, ROUTES, type RouteId, type UiRoute } from "@gatehouse/contract";
import type { ComponentType } from "react";
import { loadLaterStrings } from "../i18n/index.ts";
import { FIRST_PART_ROUTES } from "../i18n/parts.ts";
import NotFound from "../screens/system/NotFound.tsx";
import { SCREEN_FILES } from "./screen-files.ts";

type ScreenModule = { default: ComponentType };

/**
 * The screen modules of SCREEN_FILES, each its own chunk, loaded on demand. The glob names them (it must be a
 * literal), and a test pins that it covers every entry of SCREEN_FILES.
 */
export const SCREEN_MODULES = import.meta.glob<ScreenModule>([
  "../screens/login/{Login,LoginSuccess,Logout}.tsx",
  "../screens/second-factor/SecondFactor.tsx",
  "../screens/system/ErrorPage.tsx",
  "../screens/register/{Register,RegisterComplete}.tsx",
  "../screens/activate/{Activate,ActivateLogin}.tsx",
  "../screens/password/{Recover,Reset,Setup,Change}.tsx",
  "../screens/security/Security.tsx",
  "../screens/profile/{EditProfile,DeleteAccount}.tsx",
  "../screens/{desktop/DesktopApp,popup/Close}.tsx",
  "../screens/service/ServiceLogin.tsx",
  "../screens/legacy/LegacyCallback.tsx",
  "../screens/social/{RegisterSocial,RegisterSocialComplete,LinkAccount}.tsx",
  "../screens/corporate/{CorporateLogin,CorporateLoginError}.tsx",
  "../screens/trial/{EmailCheck,EmailConfirm,TrialLogin,TrialRegister,TrialRegisterSuccess,ExpiredLink,TrialRecover}.tsx",
  "../screens/forum/DiscourseLogin.tsx",
  "../screens/studio/{TrimbleLogin,StudioComplete}.tsx",
]);

/** Paths compare as React Router compared them: case-insensitive, a trailing slash ignored. */
function normalPath(pathname: string): string {
  return (pathname.replace(/\/+$/u, "") || "/").toLowerCase();
}

const ROUTE_BY_PATH = new Map<string, RouteId>(ROUTE_IDS.map((id) => [normalPath(ROUTES[id].path), id]));

/** The route of spec §2 an address shows, or undefined for the 404 page. */
export function routeIdFor(pathname: string): RouteId | undefined {
  return ROUTE_BY_PATH.get(normalPath(pathname));
}

/** Whether a route's screen uses the session: built screens except those that skip it (spec §2). */
export function usesSession(id: RouteId | undefined): id is RouteId {
  return id !== undefined && SCREEN_FILES[id] !== undefined && !(ROUTES[id] as UiRoute).skipSession;
}

const loaded = new Map<RouteId, ComponentType>();

/** The screen of a route when its module is already here (routes without a screen yet show the 404 page). */
export function loadedScreen(id: RouteId | undefined): ComponentType | undefined {
  if (id === undefined || SCREEN_FILES[id] === undefined) return NotFound;
  return loaded.get(id);
}

/** Loads a route's screen module (the host page preloads the first one, so this costs no second wave). */
export async function loadScreen(id: RouteId | undefined): Promise<ComponentType> {
  const ready = loadedScreen(id);
  if (ready || id === undefined) return ready ?? NotFound;
  // A screen other than sign-in also needs its language's later strings (i18n/parts.ts), preloaded beside it.
  const [module] = await Promise.all([
    SCREEN_MODULES[`../screens/${SCREEN_FILES[id]}.tsx`]?.(),
    FIRST_PART_ROUTES.includes(id) ? undefined : loadLaterStrings(),
  ]);
  const screen = module?.default ?? NotFound;
  loaded.set(id, screen);
  return screen;
}
