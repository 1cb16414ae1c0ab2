import { api, PRODUCT_CODE_PATTERN, routeUrl } from "@gatehouse/contract";
import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import { useApp } from "../../app/context.tsx";
import { Layout } from "../../app/Layout.tsx";
import { useMailedCode } from "../../app/mailed-code.ts";
import { useNavigate, useSearchParams } from "../../app/routing.tsx";
import { usePageTitle } from "../../app/title.ts";
import { useContinuation } from "../login/continue.ts";
import { trialActivationFailure } from "../trial/destination.ts";
import { forgetTrialFlow } from "../trial/flow.ts";
import { ActivationError, useActivation } from "./outcome.tsx";

/**
 * /account/activate/login?code=&return_to=&trial= : activates, signs in, continues to return_to (issue #3); a
 * trial's sign-up continues to its trial's destination, and a trial's link that cannot be used to where the trial
 * goes on (issue #12, spec §8 "Activation of a trial").
 */
export default function ActivateLogin() {
  const [params] = useSearchParams();
  const returnTo = params.get("return_to");
  const trialLink = params.get("trial") === "1";
  // A trial's link names its product (our addition), for the pages a failed link leads to.
  const linkProductCode = params.get("productCode");
  const linkProduct = linkProductCode && PRODUCT_CODE_PATTERN.test(linkProductCode) ? linkProductCode : undefined;
  const { brand, returnPolicy } = useApp();
  const { t } = useTranslation();
  const navigate = useNavigate();
  usePageTitle(t("titles.activateAccount"));
  const outcome = useActivation(api.activationLogin, useMailedCode(), returnTo);
  const { follow } = useContinuation(returnTo);
  const failure =
    outcome.state === "error" && trialLink
      ? trialActivationFailure(outcome.code, returnTo, returnPolicy, brand, linkProduct)
      : undefined;

  // biome-ignore lint/correctness/useExhaustiveDependencies: follows the answer once; follow is the screen's own.
  useEffect(() => {
    if (outcome.state !== "ok") return;
    if (outcome.answer.Trial) forgetTrialFlow();
    // The server decided (issue #24): an owed step, the return address, the trial's address or the landing page.
    follow(outcome.answer.next);
  }, [outcome]);
  const leaveTo = failure && "leave" in failure ? failure.leave : undefined;
  const expired = failure !== undefined && leaveTo === undefined;
  useEffect(() => {
    if (leaveTo) window.location.assign(leaveTo);
    else if (expired)
      navigate(routeUrl("TRIAL_EXPIRED_LINK", { return_to: returnTo ?? undefined, productCode: linkProduct }), {
        replace: true,
      });
  }, [leaveTo, expired, returnTo, linkProduct, navigate]);

  return (
    <Layout>
      {outcome.state === "error" && !failure ? (
        <ActivationError outcome={outcome} returnTo={returnTo ?? undefined} />
      ) : (
        <p role="status">{t("activate.signingIn")}</p>
      )}
    </Layout>
  );
}
