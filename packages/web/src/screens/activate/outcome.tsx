import { type AnswerOf, type api, type BodyOf, isCodeErrorKey, ROUTES, routeUrl } from "@gatehouse/contract";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { ApiError, gateway, isScreenFailure } from "../../api/index.ts";
import { useScreenFailure } from "../../app/failure.tsx";
import { Link } from "../../app/routing.tsx";
import { Alert } from "../../ui/Alert.tsx";
import { buttonClass } from "../../ui/Button.tsx";
import { useT } from "../../ui/useT.ts";
import { ResendActivation } from "./ResendActivation.tsx";

export type Outcome<A = unknown> =
  | { state: "working" }
  | { state: "ok"; answer: A }
  | { state: "error"; code: string; guid?: string };

/** Runs an activation call once for the page's code (React may mount twice in development), again after a retry. */
export function useActivation<E extends typeof api.activate | typeof api.activationLogin>(
  endpoint: E,
  code: string | null,
  /** The link's return address, for the sign-in's `next` (the activation link's sign-in only). */
  returnTo?: string | null,
): Outcome<AnswerOf<E>> {
  const fail = useScreenFailure();
  const [outcome, setOutcome] = useState<Outcome<AnswerOf<E>>>(
    code ? { state: "working" } : { state: "error", code: "activate.invalidLink" },
  );
  const started = useRef(false);
  useEffect(() => {
    if (!code || started.current) return;
    started.current = true;
    gateway()
      // Both activation endpoints take the activation code (the sign-in also the return address); TypeScript cannot
      // see that through the generic.
      .call(endpoint, { body: { activationCode: code, ...(returnTo ? { returnTo } : {}) } as BodyOf<E> })
      .then(
        (answer) => setOutcome({ state: "ok", answer }),
        (error: unknown) => {
          // The code was not spent: the retry screen's Try again runs this effect, and the call, once more.
          if (isScreenFailure(error)) {
            started.current = false;
            return fail(error);
          }
          if (error instanceof ApiError)
            setOutcome({ state: "error", code: `errors.${error.code}`, guid: error.answer.guid });
          else setOutcome({ state: "error", code: "network.unexpected" });
        },
      );
  }, [code, endpoint, fail, returnTo]);
  return outcome;
}

/** Outcomes a fresh link mends: no code, or a code that is unknown, expired, used or replaced. */
const mendedByNewLink = (code: string) => code === "activate.invalidLink" || isCodeErrorKey(code);

/** Issue #25: a used link of an active account is no failure: it says so and leads to sign-in. */
const ALREADY_ACTIVE = "errors.account_already_active";

function AlreadyActive({ returnTo }: { returnTo?: string | undefined }) {
  const { t } = useTranslation();
  return (
    <>
      <h1>{t("activate.alreadyActiveHeading")}</h1>
      <p>{t("activate.alreadyActiveBody")}</p>
      {/* The link's return address goes on with the sign-in (the login page checks it against the policy). */}
      <Link className={buttonClass} to={routeUrl("LOGIN", { return_to: returnTo })}>
        {t("activate.signIn")}
      </Link>
    </>
  );
}

/**
 * A failed activation (spec §2 "Activation result": the message plus a reference id) and a way forward: a new
 * link by address when a new link would help, and always the way back to sign-in.
 */
export function ActivationError({
  outcome,
  returnTo,
}: {
  outcome: { code: string; guid?: string };
  returnTo?: string | undefined;
}) {
  const { t } = useTranslation();
  const tk = useT();
  if (outcome.code === ALREADY_ACTIVE) return <AlreadyActive returnTo={returnTo} />;
  return (
    <>
      <h1>{t("activate.errorHeading")}</h1>
      <Alert kind="error">
        <p>{tk(outcome.code)}</p>
        {outcome.guid ? <p>{t("app.ref", { id: outcome.guid })}</p> : null}
      </Alert>
      {mendedByNewLink(outcome.code) ? <ResendActivation returnTo={returnTo} /> : null}
      <p>
        <Link to={ROUTES.LOGIN.path}>{t("app.backToSignIn")}</Link>
      </p>
    </>
  );
}
