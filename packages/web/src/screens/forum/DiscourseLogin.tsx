import { api, ROUTES, routeUrl } from "@gatehouse/contract";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { ApiError, gateway, isScreenFailure } from "../../api/index.ts";
import { useApp } from "../../app/context.tsx";
import { useScreenFailure } from "../../app/failure.tsx";
import { Layout } from "../../app/Layout.tsx";
import { Link, useNavigate } from "../../app/routing.tsx";
import { usePageTitle } from "../../app/title.ts";
import { buttonClass, secondaryButtonClass } from "../../ui/Button.tsx";
import { useT } from "../../ui/useT.ts";
import styles from "./Forum.module.css";

/** Refusals that signing in (or doing the owed step) mends: the login page brings the person back here. */
const SIGN_IN_FIRST = new Set(["not_authenticated"]);

type State = { kind: "working" } | { kind: "incomplete" } | { kind: "error"; code: string; guid: string | undefined };

/**
 * Issue #25: an address without the forum's request (typed, or cut short when copied) is not an error of the
 * person's: it is said plainly, with no call to the gateway.
 */
const forumRequest = () => {
  const query = new URLSearchParams(window.location.search);
  const sso = query.get("sso");
  const sig = query.get("sig");
  return sso && sig ? { sso, sig } : undefined;
};

/**
 * /discourse/login?sso=…&sig=… (spec §2 "Community forum sign-in", issue #13): the forum's DiscourseConnect request,
 * handed to the gateway as it came. Signed in, the person goes on to the forum with our signed answer; a visitor
 * signs in (in this host's brand) and comes back to this very address; anything else shows why, with the
 * reference, and the way back to the forum.
 */
export default function DiscourseLogin() {
  const { t } = useTranslation();
  const dynamicT = useT();
  const { settings } = useApp();
  const navigate = useNavigate();
  const fail = useScreenFailure();
  const [state, setState] = useState<State>(() => (forumRequest() ? { kind: "working" } : { kind: "incomplete" }));
  const started = useRef(false);
  usePageTitle(t("titles.forumSignIn"));

  useEffect(() => {
    const request = forumRequest();
    if (started.current || !request) return;
    started.current = true;
    gateway()
      .call(api.discourseSso, { query: request })
      .then(
        (answer) => window.location.assign(answer.loginUrl),
        (error: unknown) => {
          if (error instanceof ApiError && SIGN_IN_FIRST.has(error.code)) {
            navigate(routeUrl("LOGIN", { return_to: window.location.href }), { replace: true });
          } else if (error instanceof ApiError) {
            setState({ kind: "error", code: `errors.${error.code}`, guid: error.answer.guid });
          } else if (isScreenFailure(error)) {
            // The retry screen's Try again runs this once more.
            started.current = false;
            fail(error);
          } else setState({ kind: "error", code: "network.unexpected", guid: undefined });
        },
      );
  }, [fail, navigate]);

  return (
    <Layout>
      {state.kind === "working" ? <p role="status">{t("app.loading")}</p> : null}
      {state.kind === "incomplete" ? (
        <>
          <h1>{t("forum.incompleteTitle")}</h1>
          <p>{t("forum.incompleteBody")}</p>
          <div className={styles.actions}>
            {settings.forumUrl ? (
              <a className={buttonClass} href={settings.forumUrl}>
                {t("forum.toForum")}
              </a>
            ) : null}
            <Link className={settings.forumUrl ? secondaryButtonClass : buttonClass} to={ROUTES.LOGIN.path}>
              {t("forum.toSignIn")}
            </Link>
          </div>
        </>
      ) : null}
      {state.kind === "error" ? (
        <>
          <h1>{t("forum.errorTitle")}</h1>
          <p role="alert">{dynamicT(state.code)}</p>
          {state.guid ? <p>{t("app.ref", { id: state.guid })}</p> : null}
          {settings.forumUrl ? (
            <div className={styles.actions}>
              <a className={buttonClass} href={settings.forumUrl}>
                {t("forum.backToForum")}
              </a>
            </div>
          ) : null}
        </>
      ) : null}
    </Layout>
  );
}
