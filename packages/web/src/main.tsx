import type { Language } from "@gatehouse/contract";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { RouterProvider } from "react-router";
import { reportError, startApi } from "./api/index.ts";
import { AppContext, appContextFor } from "./app/context.tsx";
import { createRouter } from "./app/router.tsx";
import { readHostSettings } from "./app/settings.ts";
import { applyTheme } from "./brands/theme.ts";
import { startI18n } from "./i18n/index.ts";
import "./ui/global.css";

// Spec §8: global script errors go to error reporting.
window.addEventListener("error", (event) => reportError(event.error ?? event.message));
window.addEventListener("unhandledrejection", (event) => reportError(event.reason));

const settings = readHostSettings();
const context = appContextFor(settings, window.location.origin);
applyTheme(context.brand);
startApi(settings.gatewayUrl, settings.brand);
await startI18n(settings.language as Language);

const root = document.getElementById("root");
if (root) {
  createRoot(root).render(
    <StrictMode>
      <AppContext value={context}>
        <RouterProvider router={createRouter()} />
      </AppContext>
    </StrictMode>,
  );
}
