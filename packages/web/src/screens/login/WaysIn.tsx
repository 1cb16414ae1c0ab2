import { routeUrl } from "@gatehouse/contract";
import { useTranslation } from "react-i18next";
import { useApp } from "../../app/context.tsx";
import { useScreenFailure } from "../../app/failure.tsx";
import { Link } from "../../app/routing.tsx";
import { Button } from "../../ui/Button.tsx";
import { offeredPlatforms, type Platform, startSocialSignIn } from "./social.ts";
import styles from "./WaysIn.module.css";

/**
 * The ways in besides the password (spec §2 "Login", §5; issue #24 §2): the providers' buttons and the corporate
 * sign-in link, under the host's flags and IDPS_FILE, shared by the sign-in page and a site's or app's sign-in.
 * Each comes back to `returnTo`. A refusal that is not the shell's goes to `onError` as an i18n key.
 */
export function WaysIn(props: { returnTo: string | null; disabled: boolean; onError: (key: string) => void }) {
  const { settings } = useApp();
  const { t } = useTranslation();
  const fail = useScreenFailure();
  const { flags } = settings;
  const platforms = offeredPlatforms(settings, flags.TRIMBLE_LOGIN);
  if (platforms.length === 0 && !flags.CORPORATE_LOGIN) return null;

  const social = (platform: Platform) =>
    startSocialSignIn(platform, { returnTo: props.returnTo, autoRegister: false, fail, onError: props.onError });

  return (
    <>
      <div className={styles.divider}>{t("login.or")}</div>
      <div className={styles.providers}>
        {platforms.map((platform) => (
          <Button key={platform} variant="secondary" disabled={props.disabled} onClick={() => void social(platform)}>
            {t(`login.${platform}`)}
          </Button>
        ))}
        {flags.CORPORATE_LOGIN ? (
          <Link
            className={styles.providerLink}
            to={routeUrl("CORPORATE_LOGIN", { return_to: props.returnTo ?? undefined })}
          >
            {t("login.corporate")}
          </Link>
        ) : null}
      </div>
    </>
  );
}
