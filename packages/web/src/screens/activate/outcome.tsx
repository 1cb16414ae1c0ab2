import { type api, ROUTES } from "@gatehouse/contract";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { ApiError, gateway, isScreenFailure } from "../../api/index.ts";
import { useScreenFailure } from "../../app/failure.tsx";
import { Alert } from "../../ui/Alert.tsx";
import { useT } from "../../ui/useT.ts";

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

/** A failed activation: the reason, its reference, and the way back to sign-in (spec §2 "Activation result"). */
export function ActivationError({ outcome }: { outcome: { code: string; guid?: string } }) {
  const { t } = useTranslation();
  const tk = useT();
  return (
    <>
      <h1>{t("activate.errorHeading")}</h1>
      <Alert kind="error">
        <p>{tk(outcome.code)}</p>
        {outcome.guid ? <p>{t("app.ref", { id: outcome.guid })}</p> : null}
      </Alert>
      <Link to={ROUTES.LOGIN.path}>{t("app.backToSignIn")}</Link>
    </>
  );
}
