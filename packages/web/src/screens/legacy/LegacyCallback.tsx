import { ROUTES, routeUrl, withTokenFragment } from "@gatehouse/contract";
import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import { Layout } from "../../app/Layout.tsx";
import { useNavigate } from "../../app/routing.tsx";
import { usePageTitle } from "../../app/title.ts";
import { clearStateCookie, readStateCookie, redeemCode, takePending } from "./flow.ts";

/** A restart without the cookie happens once per minute at most: a browser that refuses cookies must not loop. */
const RESTART_KEY = "gatehouse.legacy.restart";
const RESTART_GUARD_MS = 60_000;

/** What the callback does with what the provider sent and what the browser kept. */
type Outcome =
  | { kind: "restart"; returnTo: string | undefined }
  | { kind: "error"; code: "legacy_invalid_authentication" | "legacy_token_error" }
  | { kind: "redeem"; code: string; pending: NonNullable<ReturnType<typeof takePending>> };

/**
 * Spec §4: the state must match the cookie (else "There was a problem finalizing your authentication."); a missing
 * cookie restarts login; the provider's refusal and a code that does not redeem show the error page.
 */
function outcomeOf(query: URLSearchParams, cookieState: string | undefined, now: number): Outcome {
  const state = query.get("state");
  const pending = takePending(state);
  if (!cookieState) {
    const last = Number(sessionStorage.getItem(RESTART_KEY));
    if (now - last < RESTART_GUARD_MS) return { kind: "error", code: "legacy_invalid_authentication" };
    sessionStorage.setItem(RESTART_KEY, String(now));
    return { kind: "restart", returnTo: pending?.returnTo };
  }
  // RFC 6749 §10.12: a callback this browser did not start (a forged or replayed one) is refused (ASVS 10.1.2).
  if (state !== cookieState || !pending) return { kind: "error", code: "legacy_invalid_authentication" };
  const code = query.get("code");
  if (query.has("error") || !code) return { kind: "error", code: "legacy_token_error" };
  return { kind: "redeem", code, pending };
}

/** /legacy_login/callback (spec §2): finishes the legacy flow and sends the person on to the site with its token. */
export default function LegacyCallback() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  usePageTitle(t("titles.signIn"));
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs once, for the address the provider sent.
  useEffect(() => {
    const query = new URLSearchParams(window.location.search);
    // The code leaves the address bar and the history at once (ASVS 14.2.1); the page sends no Referer either.
    window.history.replaceState(window.history.state, "", ROUTES.LEGACY_LOGIN_CALLBACK.path);
    const outcome = outcomeOf(query, readStateCookie(), Date.now());
    clearStateCookie();
    const toError = (code: string) => navigate(routeUrl("ERROR", { error_code: code }), { replace: true });
    if (outcome.kind === "restart") navigate(routeUrl("LOGIN", { return_to: outcome.returnTo }), { replace: true });
    else if (outcome.kind === "error") toError(outcome.code);
    else {
      redeemCode(outcome.code, outcome.pending).then(
        (token) =>
          window.location.replace(withTokenFragment(outcome.pending.returnTo, token.access_token, token.expires_in)),
        () => toError("legacy_token_error"),
      );
    }
  }, []);
  return (
    <Layout>
      <p role="status">{t("app.loading")}</p>
    </Layout>
  );
}
