import { api, routeUrl } from "@gatehouse/contract";
import { useCallback, useState } from "react";
import { useTranslation } from "react-i18next";
import { gateway } from "../../api/index.ts";
import { Link } from "../../app/routing.tsx";
import { tabStorage } from "../../app/tab-storage.ts";

/**
 * Spec §5 corporate hint: on blur, asks the gateway's login modes whether the address's domain signs in through
 * its company; failures are silent (the hint is a help, not a gate).
 */
export function useCorporateHint(): { corporate: boolean; check: (email: string) => void } {
  const [corporate, setCorporate] = useState(false);
  const check = useCallback((email: string) => {
    if (!email.includes("@")) return setCorporate(false);
    gateway()
      .call(api.loginModes, { body: { username: email } })
      .then(
        (modes) => setCorporate(modes.oidc),
        () => setCorporate(false),
      );
  }, []);
  return { corporate, check };
}

/**
 * The address typed before "Continue with corporate email", for the corporate page's field (issue #25). It lives in
 * this tab's sessionStorage, never in the URL (ASVS 14.2.1: no personal data in addresses, which end up in logs,
 * history and Referer); an empty field forgets an older one.
 */
const CORPORATE_EMAIL_KEY = "gatehouse.corporateEmail";

export function rememberCorporateEmail(email: string | undefined): void {
  const typed = email?.trim();
  if (typed) tabStorage()?.setItem(CORPORATE_EMAIL_KEY, typed);
  else tabStorage()?.removeItem(CORPORATE_EMAIL_KEY);
}

export function corporateEmail(): string | undefined {
  return tabStorage()?.getItem(CORPORATE_EMAIL_KEY) || undefined;
}

export function forgetCorporateEmail(): void {
  tabStorage()?.removeItem(CORPORATE_EMAIL_KEY);
}

export function CorporateHint({ returnTo, email }: { returnTo: string | null; email: () => string | undefined }) {
  const { t } = useTranslation();
  return (
    <p role="status">
      {t("login.corporateHint")}{" "}
      <Link
        to={routeUrl("CORPORATE_LOGIN", { return_to: returnTo ?? undefined })}
        onClick={() => rememberCorporateEmail(email())}
      >
        {t("login.corporateLink")}
      </Link>
    </p>
  );
}
