import { type AnswerOf, api } from "@gatehouse/contract";
import { useEffect, useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { errorKey, gateway, isScreenFailure } from "../../api/index.ts";
import { useScreenFailure } from "../../app/failure.tsx";
import { Alert } from "../../ui/Alert.tsx";
import { Button } from "../../ui/Button.tsx";
import { useT } from "../../ui/useT.ts";
import styles from "./EditProfile.module.css";

type Identity = AnswerOf<typeof api.identities>["identities"][number];
type Message = { kind: "error"; key: string } | { kind: "removed"; name: string };

/**
 * Edit account's "Linked sign-in methods" (issue #11): the providers' accounts that sign in to this one, each with
 * its Remove button (named after the provider). Absent for an account with none. Remove is offered only while
 * another way to sign in stays (a password, or another method), and the only one says why it has none (issue #25);
 * the server decides it again atomically (409 identity_last_method), which shows here if another tab raced.
 */
export function LinkedIdentities() {
  const { t } = useTranslation();
  const tk = useT();
  const fail = useScreenFailure();
  const headingId = useId();
  const [identities, setIdentities] = useState<Identity[]>();
  const [hasPassword, setHasPassword] = useState(false);
  const [removing, setRemoving] = useState<string>();
  const [message, setMessage] = useState<Message>();

  // Runs again after the retry screen until the list came (React's Activity re-runs effects).
  useEffect(() => {
    if (identities) return;
    gateway()
      .call(api.identities)
      .then(
        (answer) => {
          setHasPassword(answer.hasPassword);
          setIdentities(answer.identities);
        },
        (failure: unknown) =>
          isScreenFailure(failure) ? fail(failure) : setMessage({ kind: "error", key: errorKey(failure) }),
      );
  }, [identities, fail]);

  const remove = async (identity: Identity) => {
    setMessage(undefined);
    setRemoving(identity.provider);
    try {
      await gateway().call(api.unlinkIdentity, { params: { provider: identity.provider } });
      setIdentities((list) => list?.filter((item) => item.provider !== identity.provider));
      setMessage({ kind: "removed", name: identity.name });
    } catch (failure) {
      if (isScreenFailure(failure)) return fail(failure);
      setMessage({ kind: "error", key: errorKey(failure) });
    } finally {
      setRemoving(undefined);
    }
  };

  if (!message && (identities === undefined || identities.length === 0)) return null;
  // Another way in must stay (issue #25): the password, or another linked method.
  const removable = hasPassword || (identities?.length ?? 0) > 1;
  return (
    <section className={styles.section} aria-labelledby={headingId}>
      <h2 id={headingId}>{t("profile.identitiesHeading")}</h2>
      {message?.kind === "removed" ? (
        <Alert kind="success">{t("profile.identityRemoved", { name: message.name })}</Alert>
      ) : null}
      {message?.kind === "error" ? <Alert kind="error">{tk(message.key)}</Alert> : null}
      {identities && identities.length > 0 ? (
        <>
          <p>{t("profile.identitiesIntro")}</p>
          <ul className={styles.identities}>
            {identities.map((identity) => (
              <li key={identity.provider}>
                <span>
                  <span className={styles.identityName}>{identity.name}</span>
                  {identity.email ? <span className={styles.identityEmail}>{identity.email}</span> : null}
                </span>
                {removable ? (
                  <Button
                    variant="secondary"
                    className={styles.remove}
                    aria-label={t("profile.removeIdentityLabel", { name: identity.name })}
                    busy={removing === identity.provider}
                    disabled={removing !== undefined}
                    onClick={() => void remove(identity)}
                  >
                    {t("profile.removeIdentity")}
                  </Button>
                ) : null}
              </li>
            ))}
          </ul>
          {removable ? null : <p>{t("profile.identityOnly", { name: identities[0]?.name })}</p>}
        </>
      ) : null}
    </section>
  );
}
