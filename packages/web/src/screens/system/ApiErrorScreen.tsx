import { ROUTES } from "@gatehouse/contract";
import { useTranslation } from "react-i18next";
import { NetworkError, ServerError, UnexpectedAnswerError } from "../../api/index.ts";
import { Link } from "../../app/routing.tsx";
import { Button } from "../../ui/Button.tsx";

/** What went wrong, in words: offline, timed out, an unexpected answer, or the servers' failure. */
export function useFailureDetail(error: unknown): string {
  const { t } = useTranslation();
  if (error instanceof NetworkError) return t(error.kind === "offline" ? "network.offline" : "network.timeout");
  if (error instanceof UnexpectedAnswerError) {
    return `${t("network.unexpected")} ${t("network.status", { status: error.status })}`;
  }
  // The service said it is away for a moment (its database restarting, issue #14): say so, not "a mess".
  if (error instanceof ServerError && error.status === 503) return t("errors.service_unavailable");
  return t("apiError.body");
}

/** The reference of a failure the server logged, when it sent one. */
export function failureGuid(error: unknown): string | undefined {
  return (error as { guid?: string } | undefined)?.guid;
}

/**
 * 5xx, network and unexpected answers: "Oops... what a mess." with a retry (spec §2, §8). The screen under it
 * keeps what was typed, so Try again returns to it as it was; sign-in is the way out if the failure stays.
 */
export function ApiErrorScreen({ error, onRetry }: { error: unknown; onRetry: () => void }) {
  const { t } = useTranslation();
  const detail = useFailureDetail(error);
  const guid = failureGuid(error);
  return (
    <>
      <h1>{t("apiError.heading")}</h1>
      <p role="alert">{detail}</p>
      {guid ? <p>{t("app.ref", { id: guid })}</p> : null}
      <Button onClick={onRetry}>{t("apiError.retry")}</Button>
      <p>
        <Link to={ROUTES.LOGIN.path} onClick={onRetry}>
          {t("app.backToSignIn")}
        </Link>
      </p>
    </>
  );
}
