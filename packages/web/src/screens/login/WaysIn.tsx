import { routeUrl } from "@gatehouse/contract";
import { useTranslation } from "react-i18next";
import { useApp } from "../../app/context.tsx";
import { useScreenFailure } from "../../app/failure.tsx";
import { Link } from "../../app/routing.tsx";
import { rememberCorporateEmail } from "./corporate.tsx";
import { ProviderMark } from "./marks.tsx";
import { offeredPlatforms, type Platform, startSocialSignIn } from "./social.ts";
import styles from "./WaysIn.module.css";

/** Sign-in's ways in, or sign-up's: the catalog section of the buttons' wording, and which flags apply. */
export type WaysInPurpose = "login" | "register";

/**
 * The ways in besides the password (spec §2 "Login", §5; issues #24 §2, #25): "or", the providers' buttons with
 * their marks, then the corporate sign-in, under the host's flags and IDPS_FILE. One component for sign-in, a
 * site's or app's sign-in and registration, so all three look and read alike. Each comes back to `returnTo`; a
 * refusal that is not the shell's goes to `onError` as an i18n key. `typedEmail` is the address in the page's
 * field, which the corporate page then starts with.
 */
export function WaysIn(props: {
  returnTo: string | null;
  disabled: boolean;
  onError: (key: string) => void;
  purpose?: WaysInPurpose;
  typedEmail?: () => string | undefined;
}) {
  const { settings } = useApp();
  const { t } = useTranslation();
  const fail = useScreenFailure();
  const purpose = props.purpose ?? "login";
  const { flags } = settings;
  const signUp = purpose === "register";
  const platforms = offeredPlatforms(settings, signUp ? flags.TRIMBLE_REGISTER : flags.TRIMBLE_LOGIN);
  const corporate = signUp ? flags.CORPORATE_REGISTER : flags.CORPORATE_LOGIN;
  if (platforms.length === 0 && !corporate) return null;

  const social = (platform: Platform) =>
    startSocialSignIn(platform, { returnTo: props.returnTo, autoRegister: signUp, fail, onError: props.onError });

  return (
    <>
      <div className={styles.divider}>{t("login.or")}</div>
      <div className={styles.providers}>
        {platforms.map((platform) => (
          <button
            key={platform}
            type="button"
            className={styles.provider}
            disabled={props.disabled}
            onClick={() => void social(platform)}
          >
            <ProviderMark platform={platform} />
            <span>{t(providerLabel(purpose, platform))}</span>
          </button>
        ))}
        {corporate ? (
          <Link
            className={styles.provider}
            to={routeUrl("CORPORATE_LOGIN", { return_to: props.returnTo ?? undefined })}
            onClick={() => rememberCorporateEmail(props.typedEmail?.())}
          >
            <CorporateMark />
            <span>{t(`${purpose}.corporate`)}</span>
          </Link>
        ) : null}
      </div>
    </>
  );
}

/**
 * The button's words, as each provider's guidelines ask: Google's and Trimble's "Sign in with" / "Sign up with",
 * Meta's "Continue with Facebook" on both pages (its guidelines offer no "Sign up" wording).
 */
function providerLabel(
  purpose: WaysInPurpose,
  platform: Platform,
): "login.facebook" | `${WaysInPurpose}.${Exclude<Platform, "facebook">}` {
  return platform === "facebook" ? "login.facebook" : (`${purpose}.${platform}` as const);
}

/** An envelope in the text's colour: the company's own sign-in has no brand of its own to show here. */
function CorporateMark() {
  return (
    <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false" data-mark="corporate">
      <g fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinejoin="round">
        <rect x="2.5" y="5" width="19" height="14" rx="2" />
        <path d="m3 6.5 9 6.5 9-6.5" />
      </g>
    </svg>
  );
}
