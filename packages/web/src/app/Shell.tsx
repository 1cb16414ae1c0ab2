import { useState } from "react";
import { useTranslation } from "react-i18next";
import { isRouteErrorResponse, Outlet, useNavigation, useRevalidator, useRouteError } from "react-router";
import { isScreenFailure, reportError } from "../api/index.ts";
import { ApiErrorScreen } from "../screens/system/ApiErrorScreen.tsx";
import { CrashScreen } from "../screens/system/CrashScreen.tsx";
import NotFound from "../screens/system/NotFound.tsx";
import { Spinner } from "../ui/Spinner.tsx";
import { FailureContext } from "./failure.tsx";
import { Layout } from "./Layout.tsx";

/**
 * The root route: the screen, a "Loading..." spinner floating over it while the next route loads (the screen stays
 * where it is, so nothing jumps), and the failure screen a screen hands over.
 */
export function Shell() {
  const navigation = useNavigation();
  const { t } = useTranslation();
  const [failure, setFailure] = useState<unknown>();
  if (failure !== undefined) {
    return (
      <Layout>
        <ApiErrorScreen error={failure} onRetry={() => setFailure(undefined)} />
      </Layout>
    );
  }
  return (
    <FailureContext.Provider value={setFailure}>
      <Outlet />
      {navigation.state === "loading" ? <Spinner label={t("app.loading")} layout="overlay" /> : null}
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
