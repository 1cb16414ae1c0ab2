import { routeUrl } from "@gatehouse/contract";
import { useTranslation } from "react-i18next";
import { Layout } from "../../app/Layout.tsx";
import { Link } from "../../app/routing.tsx";
import { buttonClass } from "../../ui/Button.tsx";
import { useFocusOnMount } from "../../ui/focus.ts";

/**
 * Nothing waits in this browser (issue #11: the provider's answer expired, was used, or came to another browser):
 * what happened, and the way back to sign-in, where the provider's button starts afresh. `focus` when it replaces
 * a form the person just submitted.
 */
export function SignInExpired({ returnTo, focus = false }: { returnTo: string | null; focus?: boolean }) {
  const { t } = useTranslation();
  const heading = useFocusOnMount(focus);
  return (
    <Layout>
      <h1 ref={heading} tabIndex={-1}>
        {t("social.expiredHeading")}
      </h1>
      <p>{t("errors.social_invalid_authentication")}</p>
      <Link className={buttonClass} to={routeUrl("LOGIN", { return_to: returnTo ?? undefined })}>
        {t("app.backToSignIn")}
      </Link>
    </Layout>
  );
}
