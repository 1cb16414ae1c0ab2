import { api, routeUrl } from "@gatehouse/contract";
import { useCallback, useState } from "react";
import { useTranslation } from "react-i18next";
import { gateway } from "../../api/index.ts";
import { Link } from "../../app/routing.tsx";

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

export function CorporateHint({ returnTo }: { returnTo: string | null }) {
  const { t } = useTranslation();
  return (
    <p role="status">
      {t("login.corporateHint")}{" "}
      <Link to={routeUrl("CORPORATE_LOGIN", { return_to: returnTo ?? undefined })}>{t("login.corporateLink")}</Link>
    </p>
  );
}
