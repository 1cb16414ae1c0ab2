import { useEffect, useRef } from "react";
import { useLocation, useNavigate } from "../../app/routing.tsx";

export type Step = 1 | 2;
const STATE_KEY = "registrationStep";

/**
 * Registration's step lives in the browser history (issue #8): Continue pushes step 2, so the browser's Back
 * returns to step 1 and Forward to step 2, as the in-page Back link does. The step is history state, not a query
 * parameter, so the address stays the one the visitor came by. A page that starts afresh (a reload, a restored
 * tab) has an empty form, so it starts at step 1 whatever its history entry says (spec §4: clamped to 1–2).
 */
export function useRegistrationStep(): { step: Step; toStepTwo: () => void; toStepOne: () => void } {
  const location = useLocation();
  const navigate = useNavigate();
  // Whether this page made a step-2 entry itself, i.e. its form holds what step 1 asked for.
  const madeStepTwo = useRef(false);
  const asked = (location.state as Record<string, unknown> | null)?.[STATE_KEY] === 2;
  const { pathname, search, hash } = location;

  useEffect(() => {
    if (asked && !madeStepTwo.current) navigate({ pathname, search, hash }, { replace: true, state: null });
  }, [asked, pathname, search, hash, navigate]);

  return {
    step: asked && madeStepTwo.current ? 2 : 1,
    toStepTwo: () => {
      madeStepTwo.current = true;
      navigate({ pathname, search, hash }, { state: { [STATE_KEY]: 2 } });
    },
    // Step 2 is always an entry this page pushed over step 1, so one step back is step 1.
    toStepOne: () => navigate(-1),
  };
}
