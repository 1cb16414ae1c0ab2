import { ROUTE_IDS, ROUTES, type RouteId, type UiRoute } from "@gatehouse/contract";
import type { ComponentType } from "react";
import { createBrowserRouter, type LoaderFunction, type RouteObject } from "react-router";
import NotFound from "../screens/system/NotFound.tsx";
import { RouteError, Shell } from "./Shell.tsx";
import { fetchSession, requireSession } from "./session.ts";

type ScreenModule = { default: ComponentType };

/**
 * Screens built so far, each loaded on demand. A route of spec §2 missing here belongs to later work and shows
 * the 404 page until its screen lands (DEVELOPERS.md: never a placeholder).
 */
const SCREENS: Partial<Record<RouteId, () => Promise<ScreenModule>>> = {
  LOGIN: () => import("../screens/login/Login.tsx"),
  LOGIN_SUCCESS: () => import("../screens/login/LoginSuccess.tsx"),
  LOGOUT: () => import("../screens/login/Logout.tsx"),
  ERROR: () => import("../screens/system/ErrorPage.tsx"),
  REGISTER: () => import("../screens/register/Register.tsx"),
  REGISTER_COMPLETE: () => import("../screens/register/RegisterComplete.tsx"),
  ACCOUNT_ACTIVATE: () => import("../screens/activate/Activate.tsx"),
  TRIAL_ACTIVATE_LOGIN: () => import("../screens/activate/ActivateLogin.tsx"),
  PASSWORD_RECOVER: () => import("../screens/password/Recover.tsx"),
  PASSWORD_RESET: () => import("../screens/password/Reset.tsx"),
  PASSWORD_SETUP: () => import("../screens/password/Setup.tsx"),
  PASSWORD_CHANGE: () => import("../screens/password/Change.tsx"),
  ACCOUNT_EDIT: () => import("../screens/profile/EditProfile.tsx"),
  ACCOUNT_DELETE: () => import("../screens/profile/DeleteAccount.tsx"),
};

function loaderFor(id: RouteId): LoaderFunction | undefined {
  const route: UiRoute = ROUTES[id];
  if (route.skipSession) return undefined;
  return route.loginRequired ? requireSession : () => fetchSession();
}

function routeFor(id: RouteId): RouteObject {
  const screen = SCREENS[id];
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
