import { isSocialPlatform, loginHeadingFor, routeUrl, SOCIAL_PLATFORM_NAMES } from "@gatehouse/contract";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { useApp } from "../../app/context.tsx";
import { Layout } from "../../app/Layout.tsx";
import { routeIdFor } from "../../app/router.tsx";
import { Link, useLocation, useSearchParams } from "../../app/routing.tsx";
import { sessionAnswer, useSession } from "../../app/session.ts";
import { usePageTitle } from "../../app/title.ts";
import { Alert } from "../../ui/Alert.tsx";
import { useT } from "../../ui/useT.ts";
import { useContinuation } from "./continue.ts";
import { destinationWhenSignedIn } from "./destination.ts";
import styles from "./Login.module.css";
import { usePasswordSignIn } from "./PasswordSignIn.tsx";
import { usePasskeySignIn } from "./passkey.tsx";
import { WaysIn } from "./WaysIn.tsx";

/** Sign in (spec §2 "Login", §4, §5, §8). */
export default function Login() {
  const sessionState = useSession();
  const session = sessionState.status === "ready" ? sessionState.session : null;
  const [params] = useSearchParams();
  const returnTo = params.get("return_to");
  const { brand, returnPolicy } = useApp();
  // Spec §4: `prompt=login` forces a sign-in even when signed in; any prompt keeps the page from the legacy flow.
  const forceSignIn = params.get("prompt") === "login";
  const { redirecting, legacy, go, startLegacyFlow, follow } = useContinuation(returnTo);
  const legacyFlow = legacy !== undefined && !params.has("prompt");
  const { t } = useTranslation();
  const tk = useT();
  const [socialError, setSocialError] = useState<string>();
  // The screen stays mounted while the next one loads (and the shell asks for the session again meanwhile).
  const current = routeIdFor(useLocation().pathname) === "LOGIN";
  usePageTitle(t("titles.signIn"));

  // biome-ignore lint/correctness/useExhaustiveDependencies: starts once, when the page opens.
  useEffect(() => {
    if (legacyFlow && current) startLegacyFlow(legacy);
  }, []);

  // Spec §4: a signed-in visitor is sent on as soon as the session answer says so (the form shows meanwhile).
  // Only while this is the current screen: a sign-in that is already on its way elsewhere is not redirected again.
  // biome-ignore lint/correctness/useExhaustiveDependencies: acts on the session answer, once per account.
  useEffect(() => {
    if (session && current && !redirecting && !legacyFlow && !forceSignIn) {
      go(destinationWhenSignedIn(returnTo, returnPolicy));
    }
  }, [session?.UserGUID, current]);

  const passwordSignIn = usePasswordSignIn({
    returnTo,
    redirecting,
    // Issue #9: the form renders before the session answer; a submit waits for it, and a signed-in visitor is
    // sent on by the effect above instead of signing in again (a failed session call shows the retry screen).
    beforeSubmit: async () => {
      setSocialError(undefined);
      const signedIn = Boolean(await sessionAnswer().catch(() => "failed"));
      return signedIn && !forceSignIn;
    },
    onSignedIn: (answer) => follow(answer.next),
  });

  // Issue #26: "Sign in with a passkey", and passkeys in the e-mail field's autofill where the browser offers them.
  const passkey = usePasskeySignIn({
    returnTo,
    autofill: true,
    disabled: passwordSignIn.isSubmitting,
    onSignedIn: follow,
  });

  if ((session && !forceSignIn) || redirecting || legacyFlow) {
    return (
      <Layout>
        <p role="status">{t("app.loading")}</p>
      </Layout>
    );
  }

  const heading = loginHeadingFor(returnTo);
  // Issue #24 §3: back from a provider where the person chose Cancel: a calm notice, not an error.
  const cancelled = cancelledAt(params.get("cancelled"));
  const busy = passwordSignIn.isSubmitting || redirecting;
  const promo = brand.traits.promoCover ? (
    <aside className={styles.promo}>
      <h2>{t("login.promoTitle")}</h2>
      <p>{t("login.promoBody")}</p>
    </aside>
  ) : undefined;

  return (
    <Layout aside={promo}>
      <h1>{t(`login.heading.${heading}`)}</h1>
      {cancelled ? <Alert kind="info">{t("login.cancelled", { provider: cancelled })}</Alert> : null}
      {socialError ? <Alert kind="error">{tk(socialError)}</Alert> : null}
      {passwordSignIn.view}
      {passkey.view}
      <WaysIn returnTo={returnTo} disabled={busy} onError={setSocialError} typedEmail={passwordSignIn.typedEmail} />
      <p className={styles.create}>
        {t("login.noAccount")}{" "}
        <Link to={routeUrl("REGISTER", { return_to: returnTo ?? undefined })}>{t("login.createAccount")}</Link>
      </p>
    </Layout>
  );
}

/** The provider's name of a `cancelled` parameter: only the social platforms' (proper names, never page text). */
function cancelledAt(value: string | null): string | undefined {
  return isSocialPlatform(value) ? SOCIAL_PLATFORM_NAMES[value] : undefined;
}
