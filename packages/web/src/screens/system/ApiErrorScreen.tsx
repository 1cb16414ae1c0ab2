import { useTranslation } from "react-i18next";
import { NetworkError, UnexpectedAnswerError } from "../../api/index.ts";
import { Button } from "../../ui/Button.tsx";

/** 5xx, network and unexpected answers: "Oops... what a mess." with a retry (spec §2, §8). */
export function ApiErrorScreen({ error, onRetry }: { error: unknown; onRetry: () => void }) {
  const { t } = useTranslation();
  let detail = t("apiError.body");
  if (error instanceof NetworkError) detail = t(error.kind === "offline" ? "network.offline" : "network.timeout");
  if (error instanceof UnexpectedAnswerError) {
    detail = `${t("network.unexpected")} ${t("network.status", { status: error.status, body: error.body })}`;
  }
  const guid = (error as { guid?: string }).guid;
  return (
    <>
      <h1>{t("apiError.heading")}</h1>
      <p role="alert">{detail}</p>
      {guid ? <p>{t("app.ref", { id: guid })}</p> : null}
      <Button onClick={onRetry}>{t("apiError.retry")}</Button>
    </>
  );
}
