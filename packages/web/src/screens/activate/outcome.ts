import type { api } from "@gatehouse/contract";
import { useEffect, useRef, useState } from "react";
import { ApiError, gateway, isScreenFailure } from "../../api/index.ts";
import { useScreenFailure } from "../../app/failure.tsx";

export type Outcome = { state: "working" } | { state: "ok" } | { state: "error"; code: string; guid?: string };

/** Runs an activation call once for the page's code (React may mount twice in development). */
export function useActivation(
  endpoint: typeof api.activate | typeof api.activationLogin,
  code: string | null,
): Outcome {
  const fail = useScreenFailure();
  const [outcome, setOutcome] = useState<Outcome>(
    code ? { state: "working" } : { state: "error", code: "activate.invalidLink" },
  );
  const started = useRef(false);
  useEffect(() => {
    if (!code || started.current) return;
    started.current = true;
    gateway()
      .call(endpoint, { body: { activationCode: code } })
      .then(
        () => setOutcome({ state: "ok" }),
        (error: unknown) => {
          if (isScreenFailure(error)) return fail(error);
          if (error instanceof ApiError)
            setOutcome({ state: "error", code: `errors.${error.code}`, guid: error.answer.guid });
          else setOutcome({ state: "error", code: "network.unexpected" });
        },
      );
  }, [code, endpoint, fail]);
  return outcome;
}
