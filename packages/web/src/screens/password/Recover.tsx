import { routeUrl } from "@gatehouse/contract";
import { useTranslation } from "react-i18next";
import { Layout } from "../../app/Layout.tsx";
import { useSearchParams } from "../../app/routing.tsx";
import { usePageTitle } from "../../app/title.ts";
import { RecoverForm } from "./RecoverForm.tsx";

/** Forgot password (spec §2): the recovery form, with the way back to sign-in. */
export default function Recover() {
  const [params] = useSearchParams();
  const returnTo = params.get("return_to") ?? undefined;
  const { t } = useTranslation();
  usePageTitle(t("titles.recoverPassword"));
  return (
    <Layout>
      <RecoverForm
        returnTo={returnTo}
        back={{ to: routeUrl("LOGIN", { return_to: returnTo }), label: t("recover.backToSignIn") }}
      />
    </Layout>
  );
}
