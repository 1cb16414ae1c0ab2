import { ROUTE_IDS, ROUTES, type RouteId, type UiRoute } from "@gatehouse/contract";
import type { ComponentType } from "react";
import { createBrowserRouter, type LoaderFunction, type RouteObject } from "react-router";
import NotFound from "../screens/system/NotFound.tsx";
import { RouteError, Shell } from "./Shell.tsx";
import { SCREEN_FILES } from "./screen-files.ts";
import { fetchSession, requireSession } from "./session.ts";

type ScreenModule = { default: ComponentType };

/**
 * The screen modules of SCREEN_FILES, each its own chunk, loaded on demand. The glob names them (it must be a
 * literal), and a test pins that it covers every entry of SCREEN_FILES.
 */
export const SCREEN_MODULES = import.meta.glob<ScreenModule>([
  "../screens/login/{Login,LoginSuccess,Logout}.tsx",
  "../screens/system/ErrorPage.tsx",
  "../screens/register/{Register,RegisterComplete}.tsx",
  "../screens/activate/{Activate,ActivateLogin}.tsx",
  "../screens/password/{Recover,Reset,Setup,Change}.tsx",
  "../screens/profile/{EditProfile,DeleteAccount}.tsx",
]);

function screenFor(id: RouteId): (() => Promise<ScreenModule>) | undefined {
  const file = SCREEN_FILES[id];
  return file === undefined ? undefined : SCREEN_MODULES[`../screens/${file}.tsx`];
}

function loaderFor(id: RouteId): LoaderFunction | undefined {
  const route: UiRoute = ROUTES[id];
  if (route.skipSession) return undefined;
  return route.loginRequired ? requireSession : () => fetchSession();
}

function routeFor(id: RouteId): RouteObject {
  const screen = screenFor(id);
  const loader = loaderFor(id);
  if (!screen) return { path: ROUTES[id].path, Component: NotFound };
  return {
    path: ROUTES[id].path,
    ...(loader ? { loader } : {}),
    lazy: async () => ({ Component: (await screen()).default }),
  };
}

/** Spec §2: nothing renders while no route is set. */
function NothingYet() {
  return null;
}

export function createRouter() {
  return createBrowserRouter([
    {
      Component: Shell,
      ErrorBoundary: RouteError,
      HydrateFallback: NothingYet,
      children: [...ROUTE_IDS.map(routeFor), { path: "*", Component: NotFound }],
    },
  ]);
}
