import { api } from "@gatehouse/contract";
import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { errorKey, gateway, isScreenFailure } from "../../api/index.ts";
import { useScreenFailure } from "../../app/failure.tsx";
import { Alert } from "../../ui/Alert.tsx";
import { Button } from "../../ui/Button.tsx";
import { useT } from "../../ui/useT.ts";
import styles from "./EditProfile.module.css";

type State = { kind: "idle" | "busy" | "sent" } | { kind: "error"; key: string };

/**
 * Edit account's "Password" for an account without one (made with a provider or a company, issue #25): a set-up
 * link by mail, the invitation's flow, so the person proves the mailbox before choosing a password.
 */
export function SetPassword({ email }: { email: string }) {
  const { t } = useTranslation();
  const tk = useT();
  const fail = useScreenFailure();
  const headingId = useId();
  const [state, setState] = useState<State>({ kind: "idle" });

  const request = async () => {
    setState({ kind: "busy" });
    try {
      await gateway().call(api.passwordSetupLink, { body: {} });
      setState({ kind: "sent" });
    } catch (failure) {
      if (isScreenFailure(failure)) return fail(failure);
      setState({ kind: "error", key: errorKey(failure) });
    }
  };

  return (
    <section className={styles.section} aria-labelledby={headingId}>
      <h2 id={headingId}>{t("profile.passwordHeading")}</h2>
      {state.kind === "sent" ? (
        <Alert kind="success">{t("profile.setPasswordSent", { email })}</Alert>
      ) : (
        <>
          <p>{t("profile.setPasswordIntro")}</p>
          {state.kind === "error" ? <Alert kind="error">{tk(state.key)}</Alert> : null}
          <Button variant="secondary" busy={state.kind === "busy"} onClick={() => void request()}>
            {t("profile.setPassword")}
          </Button>
        </>
      )}
    </section>
  );
}
