import { ROUTES, type RouteId, routeUrl, type UiRoute } from "@gatehouse/contract";
import { Activity, type ComponentType, useEffect, useLayoutEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { ApiErrorScreen } from "../screens/system/ApiErrorScreen.tsx";
import { Spinner } from "../ui/Spinner.tsx";
import { useRestoredPageCheck } from "./bfcache.ts";
import { FailureContext } from "./failure.tsx";
import { Layout } from "./Layout.tsx";
import { openedAsStep } from "./owed-step.ts";
import { RouteError } from "./RouteError.tsx";
import { loadedScreen, loadScreen, routeIdFor, usesSession } from "./router.tsx";
import { navigate, useLocation } from "./routing.tsx";
import { StepUpHost } from "./StepUp.tsx";
import { currentSession, refreshSession, type SessionState, useSession } from "./session.ts";

/** The address a screen was asked for, the session call it goes with, and whether it waits for its answer. */
interface Arrival {
  pathname: string;
  seq: number;
  usesSession: boolean;
  waits: boolean;
}

/**
 * The first screen renders at once and gets the session answer when it comes (issue #9), except screens that need
 * a signed-in user. Every later navigation to a route that uses the session asks again, as React Router's loaders
 * did, so a screen never starts from an answer older than the sign-in or sign-out that led to it.
 */
function arrivalAt(pathname: string, first: boolean): Arrival {
  const id = routeIdFor(pathname);
  if (!usesSession(id)) return { pathname, seq: currentSession().seq, usesSession: false, waits: false };
  const route: UiRoute = ROUTES[id];
  if (first) return { pathname, seq: currentSession().seq, usesSession: true, waits: route.loginRequired === true };
  return { pathname, seq: refreshSession(), usesSession: true, waits: true };
}

const answered = (session: SessionState, arrival: Arrival) =>
  session.seq >= arrival.seq && session.status !== "pending";

/**
 * Spec §6: a route that needs a signed-in user sends a visitor to sign-in, to come back after; the screen of an owed
 * step opened as that step serves the browser's sign-in attempt instead (issue #24, app/owed-step.ts).
 */
function isTurnedAway(id: RouteId | undefined, session: SessionState, search: string): boolean {
  return (
    id !== undefined &&
    (ROUTES[id] as UiRoute).loginRequired === true &&
    session.status === "ready" &&
    !session.session &&
    !openedAsStep(id, search)
  );
}

/**
 * The app's frame: the screen of the address, a "Loading..." spinner floating over the current screen while the
 * next one loads (the screen stays where it is, so nothing jumps), and the failure screen a screen hands over. The
 * screen stays mounted (hidden) under the failure screen and while its own URL changes (a registration step, a
 * query), so what the person typed survives a retry and a step (issue #8).
 */
export function Shell() {
  const { pathname, search } = useLocation();
  const id = routeIdFor(pathname);
  const session = useSession();
  const { t } = useTranslation();
  const [failure, setFailure] = useState<unknown>();
  const [arrival, setArrival] = useState(() => arrivalAt(pathname, true));
  const [shown, setShown] = useState<{ key: string; Screen: ComponentType }>();
  const [loads, setLoads] = useState(0);
  const hiddenForCheck = useRestoredPageCheck(id);

  const Screen = loadedScreen(id);
  const here = arrival.pathname === pathname;
  const sessionFailed = here && session.status === "failed" && session.seq >= arrival.seq && arrival.usesSession;
  const ready = here && Screen !== undefined && (!arrival.waits || answered(session, arrival));
  const turnedAway = ready && isTurnedAway(id, session, search);
  const key = id ?? "404";
  if (ready && !turnedAway && Screen && (shown?.key !== key || shown.Screen !== Screen)) setShown({ key, Screen });

  // Before the browser paints, so a screen that needs nothing new swaps in without a frame of spinner.
  useLayoutEffect(() => {
    if (arrival.pathname !== pathname) setArrival(arrivalAt(pathname, false));
  }, [arrival.pathname, pathname]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `loads` changes on Try again, to load once more.
  useEffect(() => {
    if (!Screen) void loadScreen(id).then(() => setLoads((n) => n + 1), setFailure);
  }, [id, Screen, loads]);
  useEffect(() => {
    if (turnedAway) navigate(routeUrl("LOGIN", { return_to: window.location.href }), { replace: true });
  }, [turnedAway]);
  useEffect(() => {
    if (shown) window.scrollTo(0, 0);
  }, [shown]);

  const failed = sessionFailed ? (session as { error: unknown }).error : failure;
  const retry = () => {
    setFailure(undefined);
    setLoads((n) => n + 1);
    if (sessionFailed) setArrival({ ...arrival, seq: refreshSession() });
  };
  const ShownScreen = shown?.Screen;
  return (
    <FailureContext.Provider value={setFailure}>
      {failed !== undefined ? (
        <Layout>
          <ApiErrorScreen error={failed} onRetry={retry} />
        </Layout>
      ) : null}
      <Activity mode={failed === undefined && !hiddenForCheck ? "visible" : "hidden"}>
        {ShownScreen ? (
          <RouteError key={shown.key}>
            <ShownScreen />
          </RouteError>
        ) : null}
      </Activity>
      {(!ready || turnedAway || hiddenForCheck) && failed === undefined ? (
        <Spinner label={t("app.loading")} layout="overlay" />
      ) : null}
      <StepUpHost />
    </FailureContext.Provider>
  );
}
