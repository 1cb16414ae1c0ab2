import type { Language } from "@gatehouse/contract";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { reportError, startApi } from "./api/index.ts";
import { brandAt, ClientBranded } from "./app/client-brand.tsx";
import { appContextFor } from "./app/context.tsx";
import { loadScreen, routeIdFor, usesSession } from "./app/router.tsx";
import { Shell } from "./app/Shell.tsx";
import { refreshSession, sessionAnswer } from "./app/session.ts";
import { readHostSettings } from "./app/settings.ts";
import { applyTheme } from "./brands/theme.ts";
import { startI18n } from "./i18n/index.ts";
import "./ui/global.css";

// Spec §8: global script errors go to error reporting.
window.addEventListener("error", (event) => reportError(event.error ?? event.message));
window.addEventListener("unhandledrejection", (event) => reportError(event.reason));

const settings = readHostSettings();
const context = appContextFor(settings, window.location.origin);
// Issue #24 §2: a page of a site's or app's sign-in shows in the client's brand (app/client-brand.tsx).
applyTheme(brandAt(context.brand, window.location, window.location.origin));
startApi(settings.gatewayUrl, settings.brand);
// Issue #9: the session call runs while the catalog and the screen arrive (both preloaded by the host page), and
// nothing waits for it before the first render. A screen that fails to load here is retried by the shell.
// Pages that skip the session (spec §2: the error page, registration complete) make no call at all.
const routeId = routeIdFor(window.location.pathname);
const i18n = startI18n(settings.language as Language);
if (usesSession(routeId)) {
  refreshSession();
  // Spec §4, issue #10 §5: on a brand host with linked sessions, a session that lacks Linked goes to the link.
  if (settings.linkedSessions && routeId !== "LOGOUT") {
    void Promise.all([sessionAnswer(), import("./app/session-link.ts")]).then(
      ([session, link]) => link.linkSession(session, settings.publicUrl),
      () => undefined,
    );
  }
}
await Promise.all([i18n, loadScreen(routeId).catch(() => undefined)]);

const root = document.getElementById("root");
if (root) {
  createRoot(root).render(
    <StrictMode>
      <ClientBranded context={context}>
        <Shell />
      </ClientBranded>
    </StrictMode>,
  );
}
