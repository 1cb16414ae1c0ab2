import { useTranslation } from "react-i18next";
import { Button } from "../../ui/Button.tsx";

/** A rendering crash: the generic error screen with a Reload page button (spec §2). */
export function CrashScreen() {
  const { t } = useTranslation();
  return (
    <>
      <h1>{t("crash.heading")}</h1>
      <p>{t("crash.body")}</p>
      <Button onClick={() => window.location.reload()}>{t("crash.reload")}</Button>
    </>
  );
}
