import type { NextStep } from "@gatehouse/contract";
import { useTranslation } from "react-i18next";
import { usePasskeySignIn } from "../login/passkey.tsx";

/**
 * "Use a passkey" on the second-factor screen (issue #26): the server offers only the attempt's account's passkeys,
 * and a verified one finishes the step as a code would.
 */
export function PasskeyOption(props: { returnTo: string | null; disabled: boolean; onDone: (next: NextStep) => void }) {
  const { t } = useTranslation();
  const passkey = usePasskeySignIn({
    returnTo: props.returnTo,
    disabled: props.disabled,
    label: t("passkey.use"),
    onSignedIn: props.onDone,
  });
  return passkey.view;
}
