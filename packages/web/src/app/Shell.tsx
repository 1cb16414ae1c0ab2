import { Activity, useState } from "react";
import { useTranslation } from "react-i18next";
import { isRouteErrorResponse, Outlet, useLocation, useNavigation, useRevalidator, useRouteError } from "react-router";
import { isScreenFailure, reportError } from "../api/index.ts";
import { ApiErrorScreen } from "../screens/system/ApiErrorScreen.tsx";
import { CrashScreen } from "../screens/system/CrashScreen.tsx";
import NotFound from "../screens/system/NotFound.tsx";
import { Spinner } from "../ui/Spinner.tsx";
import { FailureContext } from "./failure.tsx";
import { Layout } from "./Layout.tsx";

/**
 * The root route: the screen, a "Loading..." spinner floating over it while another screen loads (the screen
 * stays where it is, so nothing jumps), and the failure screen a screen hands over. The screen stays mounted
 * (hidden) under the failure screen and while its own URL changes (a registration step, a query), so what the
 * person typed survives a retry and a step (issue #8).
 */
export function Shell() {
  const navigation = useNavigation();
  const location = useLocation();
  const { t } = useTranslation();
  const [failure, setFailure] = useState<unknown>();
  const leaving = navigation.state === "loading" && navigation.location.pathname !== location.pathname;
  return (
    <FailureContext.Provider value={setFailure}>
      {failure !== undefined ? (
        <Layout>
          <ApiErrorScreen error={failure} onRetry={() => setFailure(undefined)} />
        </Layout>
      ) : null}
      <Activity mode={failure === undefined ? "visible" : "hidden"}>
        <Outlet />
      </Activity>
      {leaving && failure === undefined ? <Spinner label={t("app.loading")} layout="overlay" /> : null}
    </FailureContext.Provider>
  );
}

/** Errors thrown while loading or rendering a route. */
export function RouteError() {
  const error = useRouteError();
  const revalidator = useRevalidator();
  if (isRouteErrorResponse(error) && error.status === 404) {
    return <NotFound />;
  }
  if (isScreenFailure(error)) {
    return (
      <Layout>
        <ApiErrorScreen error={error} onRetry={() => void revalidator.revalidate()} />
      </Layout>
    );
  }
  reportError(error);
  return (
    <Layout>
      <CrashScreen />
    </Layout>
  );
}
