import { api, isCodeErrorKey, ROUTES, routeUrl } from "@gatehouse/contract";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { type ApiError, errorKey, gateway, isScreenFailure } from "../../api/index.ts";
import { useApp } from "../../app/context.tsx";
import { useScreenFailure } from "../../app/failure.tsx";
import { Layout } from "../../app/Layout.tsx";
import { useMailedCode } from "../../app/mailed-code.ts";
import { Link } from "../../app/routing.tsx";
import { usePageTitle } from "../../app/title.ts";
import { Alert } from "../../ui/Alert.tsx";
import { Button, secondaryButtonClass } from "../../ui/Button.tsx";
import { useFocusOnChange } from "../../ui/focus.ts";
import { useT } from "../../ui/useT.ts";
import styles from "./EditProfile.module.css";

type State =
  | { kind: "CHECKING" | "INITIAL" | "DELETING" | "OK" | "GONE" }
  | { kind: "ERROR"; key: string; guid?: string | undefined };

/**
 * Issue #25: the link's state on load, without using it: the red button only while the link can delete; a link
 * whose account is gone says so; an unusable one says why at once, not after the click.
 */
function useLinkState(code: string | null, setState: (state: State) => void) {
  const fail = useScreenFailure();
  const started = useRef(false);
  useEffect(() => {
    if (!code || started.current) return;
    started.current = true;
    gateway()
      .call(api.deletionStatus, { params: { code } })
      .then(
        ({ status, guid }) => {
          if (status === "valid") setState({ kind: "INITIAL" });
          else if (status === "deleted") setState({ kind: "GONE" });
          else setState({ kind: "ERROR", key: `errors.code_${status}`, guid });
        },
        (error: unknown) => {
          if (isScreenFailure(error)) {
            // The retry screen's Try again runs the check once more.
            started.current = false;
            return fail(error);
          }
          setState({ kind: "ERROR", key: errorKey(error), guid: (error as ApiError).answer?.guid });
        },
      );
  }, [code, fail, setState]);
}

/** /account/delete?code= (spec §2 "Delete account", §4: INITIAL becomes OK or an error). */
export default function DeleteAccount() {
  const code = useMailedCode();
  const { brand } = useApp();
  const { t } = useTranslation();
  const tk = useT();
  const fail = useScreenFailure();
  usePageTitle(t("titles.destroyAccount"));
  const [state, setState] = useState<State>({ kind: code ? "CHECKING" : "INITIAL" });
  useLinkState(code, setState);
  const heading = useFocusOnChange(state.kind === "OK" || state.kind === "ERROR" || state.kind === "GONE");

  const confirm = async () => {
    setState({ kind: "DELETING" });
    try {
      await gateway().call(api.deleteAccount, { body: { deletionCode: code ?? "" } });
      setState({ kind: "OK" });
    } catch (error) {
      if (isScreenFailure(error)) return fail(error);
      setState({
        kind: "ERROR",
        key: errorKey(error),
        guid: (error as ApiError).answer?.guid,
      });
    }
  };

  // A missing, unknown, expired, used or replaced link is mended by asking again from Edit account.
  const newLink = !code || (state.kind === "ERROR" && isCodeErrorKey(state.key));
  const links = (
    <nav className={styles.links}>
      <a href={brand.links.support}>{t("deleteAccount.customerService")}</a>
      <Link to={ROUTES.LOGIN.path}>{t("deleteAccount.signIn")}</Link>
    </nav>
  );
  return (
    <Layout>
      <h1 ref={heading} tabIndex={-1}>
        {t("titles.destroyAccount")}
      </h1>
      {!code ? <Alert kind="error">{t("deleteAccount.invalidLink")}</Alert> : null}
      {state.kind === "CHECKING" ? <p role="status">{t("app.loading")}</p> : null}
      {state.kind === "GONE" ? <Alert kind="info">{t("deleteAccount.alreadyDeleted")}</Alert> : null}
      {code && (state.kind === "INITIAL" || state.kind === "DELETING") ? (
        <>
          <p>{t("deleteAccount.question")}</p>
          <Button variant="danger" onClick={() => void confirm()} busy={state.kind === "DELETING"}>
            {state.kind === "DELETING" ? t("deleteAccount.deleting") : t("deleteAccount.confirm")}
          </Button>
        </>
      ) : null}
      {state.kind === "OK" ? <Alert kind="success">{t("deleteAccount.success")}</Alert> : null}
      {state.kind === "ERROR" ? (
        <Alert kind="error">
          <p>{t("deleteAccount.failure")}</p>
          <p>{tk(state.key)}</p>
          {state.guid ? <p>{t("app.ref", { id: state.guid })}</p> : null}
        </Alert>
      ) : null}
      {newLink ? (
        <Link className={secondaryButtonClass} to={routeUrl("ACCOUNT_EDIT")}>
          {t("deleteAccount.requestNew")}
        </Link>
      ) : null}
      {links}
    </Layout>
  );
}
