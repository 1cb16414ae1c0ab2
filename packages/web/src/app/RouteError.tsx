import { Component, type ReactNode } from "react";
import { isScreenFailure, reportError } from "../api/index.ts";
import { ApiErrorScreen } from "../screens/system/ApiErrorScreen.tsx";
import { CrashScreen } from "../screens/system/CrashScreen.tsx";
import { Layout } from "./Layout.tsx";

/**
 * Errors thrown while rendering a screen: a 5xx or network failure gets the retry screen (spec §8), anything else
 * is reported and shows the crash screen. The shell keys it by route, so a navigation starts clean.
 */
export class RouteError extends Component<{ children: ReactNode }, { error: unknown; failed: boolean }> {
  override state = { error: undefined as unknown, failed: false };

  static getDerivedStateFromError(error: unknown) {
    return { error, failed: true };
  }

  override componentDidCatch(error: unknown) {
    if (!isScreenFailure(error)) reportError(error);
  }

  override render() {
    if (!this.state.failed) return this.props.children;
    const { error } = this.state;
    return (
      <Layout>
        {isScreenFailure(error) ? (
          <ApiErrorScreen error={error} onRetry={() => this.setState({ error: undefined, failed: false })} />
        ) : (
          <CrashScreen />
        )}
      </Layout>
    );
  }
}
