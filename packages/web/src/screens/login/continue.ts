import type { NextStep } from "@gatehouse/contract";
import { useState } from "react";
import { useApp } from "../../app/context.tsx";
import { useScreenFailure } from "../../app/failure.tsx";
import { useNavigate } from "../../app/routing.tsx";
import { refreshSession } from "../../app/session.ts";
import { isInternal, legacyReturn } from "./destination.ts";

export interface Continuation {
  /** On its way elsewhere: the screen shows "Loading..." and disables its buttons. */
  redirecting: boolean;
  /** The return address when it is a legacy site's, whose token the legacy flow fetches (spec §4). */
  legacy: string | undefined;
  /** Goes to a destination; `signedInNow` takes a brand host's new sign-in through the central host first. */
  go: (destination: string, signedInNow?: boolean) => void;
  startLegacyFlow: (address: string) => void;
  /**
   * Follows the server's `next` of a sign-in or owed step's answer (issue #24): the step's screen, the provider's
   * sign-in, a legacy site's token flow, the return address or the landing page. The server decided; this only goes.
   */
  follow: (next: NextStep) => void;
}

/**
 * Where a screen sends a person after a sign-in's answer, and how: every sign-in screen (password, linking a
 * provider's account, activation, set-up, social registration, an owed step) follows the answer's `next` the same way.
 */
export function useContinuation(returnTo: string | null): Continuation {
  const { settings, returnPolicy } = useApp();
  const navigate = useNavigate();
  const fail = useScreenFailure();
  const [redirecting, setRedirecting] = useState(false);
  const legacy = legacyReturn(returnTo, returnPolicy, settings.tokenOrigins);

  const go = (destination: string, signedInNow = false) => {
    setRedirecting(true);
    // Issue #10 §5: a sign-in on a brand host reaches the central host on its way, so every brand sees it.
    if (signedInNow && settings.linkedSessions) {
      const absolute = new URL(destination, window.location.origin).href;
      void import("../../app/session-link.ts").then((link) =>
        window.location.assign(link.linkThroughCentral(settings.publicUrl, absolute)),
      );
      return;
    }
    if (isInternal(destination, returnPolicy.selfOrigin)) {
      // A sign-in just finished: the next screen starts from the new session, even one at the same path (the
      // profile step's screen landing on the account page), which the shell would not ask again for.
      if (signedInNow) refreshSession();
      navigate(destination.replace(returnPolicy.selfOrigin, ""), { replace: true });
    } else window.location.assign(destination);
  };

  // Spec §4 (issue #10 §3): a legacy site's return address starts the legacy flow, which fetches the site's token
  // through the provider; signed in or not, the provider's sign-in decides. Loaded only when needed (issue #9).
  const startLegacyFlow = (address: string) => {
    setRedirecting(true);
    import("../legacy/flow.ts").then((flow) => flow.startLegacyFlow(address)).catch(fail);
  };

  const follow = (next: NextStep) => {
    if (next.kind === "legacy") return startLegacyFlow(next.url);
    // An owed step is not a finished sign-in: nothing to carry to the other hosts yet.
    go(next.url, next.kind !== "step");
  };

  return { redirecting, legacy, go, startLegacyFlow, follow };
}
