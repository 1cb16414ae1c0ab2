import {
  type AnswerOf,
  api,
  type NextStep,
  type OwedStep,
  type RouteId,
  routeUrl,
  STEP_PARAMS,
  STEP_ROUTES,
} from "@gatehouse/contract";
import { useEffect, useState } from "react";
import { ApiError, gateway, isScreenFailure } from "../api/index.ts";
import { useScreenFailure } from "./failure.tsx";
import { navigate } from "./routing.tsx";
import { useSession } from "./session.ts";

/**
 * Whether an address opens a step's screen as the step a sign-in owes (its STEP_PARAMS marker, issue #24): then the
 * screen serves the browser's sign-in attempt, which is no session, and the shell does not turn the visitor away.
 */
export function openedAsStep(id: RouteId | undefined, search: string): boolean {
  const step = (Object.keys(STEP_ROUTES) as OwedStep[]).find((owed) => STEP_ROUTES[owed] === id);
  return step !== undefined && new URLSearchParams(search).has(STEP_PARAMS[step]);
}

/** Who a step's screen serves: still asking, the signed-in person, or the sign-in attempt (and where it goes). */
export type StepScreen =
  | { kind: "checking" }
  | { kind: "session" }
  | { kind: "attempt"; next: NextStep; factors?: AttemptFactors | undefined };
/** Issue #26: the factors an attempt owing the second factor may use (the second-factor screen offers those). */
export type AttemptFactors = NonNullable<AnswerOf<typeof api.signInAttempt>["factors"]>;

/**
 * The password change and the profile are the screens of the steps a sign-in may owe (issue #24). Opened as the
 * step without a session, the screen asks for the browser's sign-in attempt: one that owes this step is served;
 * one that owes the other goes there; none (expired, another browser's link) goes to sign-in.
 */
export function useStepScreen(step: OwedStep): StepScreen {
  const session = useSession();
  const fail = useScreenFailure();
  const signedIn = session.status === "ready" && session.session !== null;
  const asVisitor = session.status === "ready" && session.session === null;
  const [attempt, setAttempt] = useState<StepScreen>({ kind: "checking" });

  useEffect(() => {
    if (!asVisitor) return;
    const params = new URLSearchParams(window.location.search);
    const toSignIn = () =>
      navigate(routeUrl("LOGIN", { return_to: params.get("return_to") ?? undefined }), { replace: true });
    gateway()
      .call(api.signInAttempt)
      .then(
        (found) => {
          if (found.owes === step) setAttempt({ kind: "attempt", next: found.next, factors: found.factors });
          else navigate(found.next.url, { replace: true });
        },
        (error: unknown) => {
          if (error instanceof ApiError && error.code === "not_found") return toSignIn();
          if (isScreenFailure(error)) fail(error);
          else toSignIn();
        },
      );
  }, [asVisitor, step, fail]);

  if (signedIn) return { kind: "session" };
  return attempt;
}
