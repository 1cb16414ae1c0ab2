import { api } from "@gatehouse/contract";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { useApp } from "../../app/context.tsx";
import { useScreenFailure } from "../../app/failure.tsx";
import { Layout } from "../../app/Layout.tsx";
import { usePageTitle } from "../../app/title.ts";
import { Alert } from "../../ui/Alert.tsx";
import { Button } from "../../ui/Button.tsx";
import { useT } from "../../ui/useT.ts";
import { ProviderMark } from "../login/marks.tsx";
import { startSocialSignIn } from "../login/social.ts";
import styles from "./Studio.module.css";

/** Where the studio sign-in continues: the gateway mints the licence helper's token there (issue #13). */
export const STUDIO_CONTINUE = `/api${api.studioComplete.path}`;

/** Keeps the page out of search engines (spec §2 "noindexed"); the server also sends X-Robots-Tag. */
function useNoIndex(): void {
  useEffect(() => {
    const meta = document.createElement("meta");
    meta.name = "robots";
    meta.content = "noindex";
    document.head.append(meta);
    return () => meta.remove();
  }, []);
}

/**
 * /trimble/login (spec §2 SKETCHUP_LOGIN, issue #13): the sketching tool's studio sign-in, the login page's Trimble
 * button alone. It runs the social flow (a new person registers, a known address links), whose every path ends at
 * `GET /api/studio/complete`, and from there on the completion page with the token for the licence helper.
 */
export default function TrimbleLogin() {
  const { settings } = useApp();
  const { t } = useTranslation();
  const tk = useT();
  const fail = useScreenFailure();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  usePageTitle(t("titles.signIn"));
  useNoIndex();
  // This page is Trimble's alone: it needs the provider set up (IDPS_FILE), not the login page's TRIMBLE_LOGIN flag.
  const offered = settings.socialPlatforms.includes("trimble");

  const signIn = async () => {
    setError(undefined);
    setBusy(true);
    await startSocialSignIn("trimble", { returnTo: STUDIO_CONTINUE, autoRegister: false, fail, onError: setError });
    setBusy(false);
  };

  return (
    <Layout>
      <h1>{t("studio.signInHeading")}</h1>
      <p>{t("studio.signInBody")}</p>
      {error ? <Alert kind="error">{tk(error)}</Alert> : null}
      {offered ? (
        <div className={styles.actions}>
          {/* The page's only action (issue #25): the primary button, Trimble's mark on a white chip of its own. */}
          <Button busy={busy} onClick={() => void signIn()}>
            {busy ? null : (
              <span className={styles.mark}>
                <ProviderMark platform="trimble" />
              </span>
            )}
            {t("login.trimble")}
          </Button>
        </div>
      ) : (
        <Alert kind="info">{t("studio.unavailable")}</Alert>
      )}
    </Layout>
  );
}
