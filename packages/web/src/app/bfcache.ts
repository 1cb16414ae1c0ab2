import { ROUTES, type RouteId, type UiRoute } from "@gatehouse/contract";
import { useEffect, useState } from "react";
import { flushSync } from "react-dom";
import { usesSession } from "./router.tsx";
import { currentSession, refreshSession, type Session, sessionAnswer } from "./session.ts";

/** Routes whose screen needs a signed-in user or shows the signed-in account. */
function showsAccount(id: RouteId | undefined): boolean {
  return id !== undefined && ((ROUTES[id] as UiRoute).loginRequired === true || id === "LOGIN_SUCCESS");
}

const accountOf = (session: Session | null | undefined) => session?.UserGUID ?? null;

/**
 * A page restored from the back/forward cache (issue #9: the HTML is cacheable now) shows what it showed when it
 * was left, with the session of that moment. The session is asked again at once. A screen that shows account
 * data is hidden until the answer says the same account is still signed in; otherwise the page loads afresh and
 * goes where a fresh load goes (sign-in, or the other account's screen) — a sign-out must not leave the account
 * on screen (ASVS 7.4.1, 14.3.1). Other screens take the new answer as it comes (sign-in moves a signed-in
 * visitor on). Returns whether the screen is hidden for that check.
 */
export function useRestoredPageCheck(id: RouteId | undefined): boolean {
  const [hidden, setHidden] = useState(false);
  useEffect(() => {
    const onPageShow = (event: PageTransitionEvent) => {
      if (!event.persisted || !usesSession(id)) return;
      const before = currentSession();
      const account = before.status === "ready" ? accountOf(before.session) : null;
      const guarded = showsAccount(id);
      // Hidden before the restored frame is painted again, not a render later.
      if (guarded) flushSync(() => setHidden(true));
      refreshSession();
      void sessionAnswer().then(
        (session) => {
          if (!guarded) return;
          if (account !== null && accountOf(session) === account) setHidden(false);
          else window.location.reload();
        },
        () => window.location.reload(),
      );
    };
    window.addEventListener("pageshow", onPageShow);
    return () => window.removeEventListener("pageshow", onPageShow);
  }, [id]);
  return hidden;
}
