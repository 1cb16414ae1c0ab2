import { type AnswerOf, type api, routeUrl } from "@gatehouse/contract";
import { useState } from "react";
import { useApp } from "../../app/context.tsx";
import { useScreenFailure } from "../../app/failure.tsx";
import { useNavigate } from "../../app/routing.tsx";
import { destinationAfterSignIn, isInternal, legacyReturn } from "./destination.ts";

export interface Continuation {
  /** On its way elsewhere: the screen shows "Loading..." and disables its buttons. */
  redirecting: boolean;
  /** The return address when it is a legacy site's, whose token the legacy flow fetches (spec §4). */
  legacy: string | undefined;
  /** Goes to a destination; `signedInNow` takes a brand host's new sign-in through the central host first. */
  go: (destination: string, signedInNow?: boolean) => void;
  startLegacyFlow: (address: string) => void;
  /** After a sign-in's answer: an owed step, the legacy flow, the return address or the landing page (spec §4). */
  afterSignIn: (answer: AnswerOf<typeof api.login>) => void;
}

/**
 * Where a screen sends a person who has just signed in, and how: the sign-in page after a password, and linking a
 * provider's account after that account's password (issue #11), so both continue the same way.
 */
export function useContinuation(returnTo: string | null): Continuation {
  const { brand, settings, returnPolicy } = useApp();
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
    if (isInternal(destination, returnPolicy.selfOrigin))
      navigate(destination.replace(returnPolicy.selfOrigin, ""), { replace: true });
    else window.location.assign(destination);
  };

  // Spec §4 (issue #10 §3): a legacy site's return address starts the legacy flow, which fetches the site's token
  // through the provider; signed in or not, the provider's sign-in decides. Loaded only when needed (issue #9).
  const startLegacyFlow = (address: string) => {
    setRedirecting(true);
    import("../legacy/flow.ts").then((flow) => flow.startLegacyFlow(address)).catch(fail);
  };

  const afterSignIn = (answer: AnswerOf<typeof api.login>) => {
    const owesStep = answer.RequiredPasswordUpdate || answer.RequiredProfileUpdate;
    if (legacy && !owesStep) return startLegacyFlow(legacy);
    // After an owed step, the login page again, whose legacy flow then brings the site its token.
    const next = legacy ? routeUrl("LOGIN", { return_to: legacy }) : returnTo;
    go(destinationAfterSignIn(answer, next, returnPolicy, brand), true);
  };

  return { redirecting, legacy, go, startLegacyFlow, afterSignIn };
}
