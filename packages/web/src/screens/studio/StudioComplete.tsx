import { type AnswerOf, api, routeUrl } from "@gatehouse/contract";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { ApiError, gateway } from "../../api/index.ts";
import { useApp } from "../../app/context.tsx";
import { Layout } from "../../app/Layout.tsx";
import { Link } from "../../app/routing.tsx";
import { usePageTitle } from "../../app/title.ts";
import { Alert } from "../../ui/Alert.tsx";
import { Button, buttonClass } from "../../ui/Button.tsx";
import { Spinner } from "../../ui/Spinner.tsx";
import {
  activate,
  activationUrl,
  blocksLocalHelper,
  callHelper,
  type Outcome,
  sleep,
  TRIES,
  type TryResult,
  worthRetrying,
} from "./licence.ts";
import styles from "./Studio.module.css";
import { useStudioToken } from "./token.ts";

type Phase = { kind: "checking" } | { kind: "notYours" } | { kind: "signedOut" } | Activating | Outcome;
type Account = AnswerOf<typeof api.studioAccount>;
/**
 * The tries under way (issue #25): `tryNumber` of TRIES; `waiting` after the helper said the server is busy, `slow`
 * after a try got no answer in time. The wait is at most the spec's tries, each bounded by its timeout.
 */
type Activating = { kind: "activating"; tryNumber: number; waiting: boolean; slow: boolean };
const FIRST_TRY: Activating = { kind: "activating", tryNumber: 1, waiting: false, slow: false };

/** After a try that is worth another: the next one's number, and why the person waits. */
const nextTry = (result: TryResult, tryNumber: number): Activating => ({
  kind: "activating",
  tryNumber: Math.min(tryNumber + 1, TRIES),
  waiting: result.kind === "temporary",
  slow: result.kind === "unreachable",
});

/**
 * /register/trimble/complete?access_token=… (spec §2 SKETCHUP_LOGIN_COMPLETE, issue #13): the linked account's name
 * and address, and the licence activated in the person's local helper with the token (spec §7, §9). It does not
 * fetch the session (spec §2). It first asks whose token it holds (GET /api/studio/account): only the signed-in
 * person's own is used, so a link someone else made cannot activate their account's licence in this person's helper.
 * Safari cannot call the helper: it gets the helper's link instead.
 */
export default function StudioComplete() {
  const { brand, settings } = useApp();
  const { t } = useTranslation();
  usePageTitle(t("titles.licenceActivation"));
  const token = useStudioToken();
  const [manual] = useState(() => blocksLocalHelper(navigator.userAgent));
  const [phase, setPhase] = useState<Phase>({ kind: "checking" });
  const [account, setAccount] = useState<Account>();
  const running = useRef(false);

  const start = async () => {
    if (!token || running.current) return;
    running.current = true;
    setPhase(FIRST_TRY);
    const outcome = await activate(settings.licenceHelperUrl, token, {
      attempt: callHelper,
      wait: sleep,
      onTry: (result, tryNumber) => {
        if (worthRetrying(result) && tryNumber < TRIES) setPhase(nextTry(result, tryNumber));
      },
    });
    running.current = false;
    setPhase(outcome);
  };

  // biome-ignore lint/correctness/useExhaustiveDependencies: once, when the page opens with its token.
  useEffect(() => {
    if (!token) return;
    gateway()
      .call(api.studioAccount, { bearer: token })
      .then((whose) => {
        setAccount(whose);
        if (manual) setPhase(FIRST_TRY);
        else void start();
      })
      .catch((error: unknown) => {
        // Not this person's token, or nobody signed in to check it against: nothing is activated.
        setPhase(
          error instanceof ApiError && error.code === "studio_token_mismatch"
            ? { kind: "notYours" }
            : { kind: "signedOut" },
        );
      });
  }, []);

  const support = (
    <p className={styles.support}>
      {t("studio.support")} <a href={brand.links.support}>{t("studio.contactSupport")}</a>
    </p>
  );

  const identity = account ? (
    <div className={styles.identity}>
      <p className={styles.label}>{t("studio.account")}</p>
      <p className={styles.name}>{account.name}</p>
      <p className={styles.email}>{account.email}</p>
    </div>
  ) : null;

  if (!token) {
    return (
      <Layout>
        <h1>{t("studio.failedHeading")}</h1>
        <Alert kind="error">{t("studio.noToken")}</Alert>
        {support}
        <div className={styles.actions}>
          <Link className={buttonClass} to={routeUrl("SKETCHUP_LOGIN")}>
            {t("studio.signInAgain")}
          </Link>
        </div>
      </Layout>
    );
  }

  if (phase.kind === "checking") {
    return (
      <Layout>
        <h1>{t("studio.activatingHeading")}</h1>
        <Spinner layout="inline" label={t("app.loading")} />
      </Layout>
    );
  }

  if (phase.kind === "notYours" || phase.kind === "signedOut") {
    return (
      <Layout>
        <h1>{t("studio.failedHeading")}</h1>
        <Alert kind="error">{t(phase.kind === "notYours" ? "studio.notYours" : "studio.signedOut")}</Alert>
        <div className={styles.actions}>
          <Link className={buttonClass} to={routeUrl("SKETCHUP_LOGIN")}>
            {t("studio.signInAgain")}
          </Link>
        </div>
        {support}
      </Layout>
    );
  }

  if (manual) {
    return (
      <Layout>
        <h1>{t("studio.manualHeading")}</h1>
        {identity}
        <p>{t("studio.manualBody")}</p>
        <div className={styles.actions}>
          <a className={buttonClass} href={activationUrl(settings.licenceHelperUrl, token, true)}>
            {t("studio.manualLink")}
          </a>
        </div>
        {support}
      </Layout>
    );
  }

  const tryAgain = (
    <div className={styles.actions}>
      <Button onClick={() => void start()}>{t("studio.tryAgain")}</Button>
    </div>
  );

  switch (phase.kind) {
    case "activating":
      return (
        <Layout>
          <h1>{phase.waiting ? t("studio.busyHeading") : t("studio.activatingHeading")}</h1>
          {identity}
          {phase.waiting ? <p>{t("studio.waitingBody")}</p> : null}
          {phase.slow ? <p>{t("studio.slowBody")}</p> : null}
          <Spinner layout="inline" label={phase.waiting ? t("studio.waiting") : t("studio.activating")} />
          {phase.tryNumber > 1 ? (
            <p className={styles.progress}>{t("studio.tryProgress", { n: phase.tryNumber, total: TRIES })}</p>
          ) : null}
          {/* A wait that goes on is no dead end: the support contact, as on the pages it may end on. */}
          {phase.waiting || phase.slow ? support : null}
        </Layout>
      );
    case "activated":
      return (
        <Layout>
          <h1>{t("studio.successHeading")}</h1>
          {identity}
          <p role="status">{t("studio.successBody")}</p>
          <div className={styles.actions}>
            <a className={buttonClass} href={brand.links.learning}>
              {t("studio.learn")}
            </a>
          </div>
        </Layout>
      );
    case "busy":
      return (
        <Layout>
          <h1>{t("studio.busyHeading")}</h1>
          {identity}
          <Alert kind="info">{t("studio.busyBody")}</Alert>
          {tryAgain}
          {support}
        </Layout>
      );
    case "failed":
      return (
        <Layout>
          <h1>{t("studio.failedHeading")}</h1>
          {identity}
          <Alert kind="error">{t("studio.serverFailed", { message: phase.message })}</Alert>
          {support}
        </Layout>
      );
    case "unreachable":
      return (
        <Layout>
          <h1>{t("studio.failedHeading")}</h1>
          {identity}
          <Alert kind="error">{t("studio.unreachable")}</Alert>
          {tryAgain}
          {support}
        </Layout>
      );
  }
}
