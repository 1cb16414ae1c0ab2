import { type AnswerOf, api, BRANDS, ROUTES, routeUrl } from "@gatehouse/contract";
import { type ReactNode, useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { ApiError, gateway } from "../../api/index.ts";
import { CLIENT_BRAND_PARAM, serviceLoginReturn } from "../../app/client-brand.tsx";
import { AppContext, useApp } from "../../app/context.tsx";
import { useScreenFailure } from "../../app/failure.tsx";
import { Layout } from "../../app/Layout.tsx";
import { Link, useLocation, useNavigate } from "../../app/routing.tsx";
import { usePageTitle } from "../../app/title.ts";
import { applyTheme } from "../../brands/theme.ts";
import { Alert } from "../../ui/Alert.tsx";
import { Button } from "../../ui/Button.tsx";
import { useT } from "../../ui/useT.ts";
import { useContinuation } from "../login/continue.ts";
import { usePasswordSignIn } from "../login/PasswordSignIn.tsx";
import { usePasskeySignIn } from "../login/passkey.tsx";
import { WaysIn } from "../login/WaysIn.tsx";
import styles from "./ServiceLogin.module.css";

type Details = AnswerOf<typeof api.serviceLogin>;
type Step = "loading" | "signIn" | "consent" | "continuing";

/** Where a password sign-in started here comes back to (recovery, activation): this screen, which resumes. */
const HERE = ROUTES.SERVICE_LOGIN.path;

/**
 * A site's or app's sign-in (spec §2 SERVICE_LOGIN; issue #10 §2): the provider sends the person here. A usable
 * gateway session finishes at once; otherwise they sign in, and agree to what a site that is not the vendor's own
 * receives. A sign-in that owes a step goes to it first and comes back here (issue #24). Shown in the client's brand.
 */
export default function ServiceLogin() {
  const app = useApp();
  const { t } = useTranslation();
  const fail = useScreenFailure();
  const navigate = useNavigate();
  const [details, setDetails] = useState<Details>();
  const [step, setStep] = useState<Step>("loading");
  const [busy, setBusy] = useState(false);

  const gone = () => navigate(routeUrl("ERROR", { error_code: "session_expired" }), { replace: true });
  /** Known refusals lead to their step; anything else is the shell's retry screen. */
  const refused = (error: unknown, on: Partial<Record<string, () => void>>) => {
    const handle = error instanceof ApiError ? on[error.code] : undefined;
    if (handle) handle();
    else fail(error);
  };

  const load = async (): Promise<Details | undefined> => {
    try {
      const answer = await gateway().call(api.serviceLogin);
      setDetails(answer);
      return answer;
    } catch (error) {
      refused(error, { not_found: gone });
      return undefined;
    }
  };

  const finish = async (consent: boolean) => {
    setBusy(true);
    try {
      const { redirect_to } = await gateway().call(api.serviceLoginFinish, { body: { consent } });
      setStep("continuing");
      window.location.assign(redirect_to);
    } catch (error) {
      setBusy(false);
      refused(error, {
        not_found: gone,
        not_authenticated: () => setStep("signIn"),
        consent_required: () => setStep("consent"),
      });
    }
  };

  const decline = async () => {
    setBusy(true);
    try {
      const { redirect_to } = await gateway().call(api.serviceLoginAbort, {});
      setStep("continuing");
      window.location.assign(redirect_to);
    } catch (error) {
      setBusy(false);
      refused(error, { not_found: gone });
    }
  };

  // biome-ignore lint/correctness/useExhaustiveDependencies: runs once, when the screen opens.
  useEffect(() => {
    void load().then((answer) => {
      if (!answer) return;
      if (answer.signInRequired) setStep("signIn");
      else void finish(false);
    });
  }, []);

  const brand = details ? BRANDS[details.client.brand] : app.brand;
  useEffect(() => applyTheme(brand), [brand]);
  // The address names the client's brand, so a reload shows it before the details arrive (app/client-brand.tsx).
  // Only while the address is this screen's: it stays mounted while the next screen loads.
  const { pathname, search } = useLocation();
  const named = new URLSearchParams(search).get(CLIENT_BRAND_PARAM);
  const renamed = details && pathname === HERE && named !== details.client.brand ? details.client.brand : undefined;
  useEffect(() => {
    if (renamed) navigate(serviceLoginReturn(renamed), { replace: true });
  }, [renamed, navigate]);

  const client = details?.client.name ?? brand.name;
  let content: ReactNode;
  if (!details || step === "loading" || step === "continuing") {
    content = <p role="status">{details ? t("serviceLogin.continuing", { client }) : t("app.loading")}</p>;
  } else if (step === "signIn") {
    content = (
      <SignIn heading={t("serviceLogin.heading", { client })} details={details} onSignedIn={() => void finish(false)} />
    );
  } else {
    content = (
      <Consent
        client={client}
        details={details}
        busy={busy}
        onAllow={() => void finish(true)}
        onDeny={() => void decline()}
      />
    );
  }
  return (
    <AppContext.Provider value={{ ...app, brand }}>
      <Page>{content}</Page>
    </AppContext.Provider>
  );
}

/** The page in the client's brand: its logo, links and the title "Sign in | <brand>". */
function Page({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  usePageTitle(t("titles.signIn"));
  return <Layout>{children}</Layout>;
}

/**
 * The sign-in page's ways in, with the site's login_hint filled in. Each comes back here with the client's brand
 * (issue #24 §2): recovery, activation, Create account, a provider's or the company's sign-in; this screen then
 * finds the person signed in and finishes, as after the password.
 */
function SignIn(props: { heading: string; details: Details; onSignedIn: () => void }) {
  const [redirecting, setRedirecting] = useState(false);
  const [refusal, setRefusal] = useState<string>();
  const here = serviceLoginReturn(props.details.client.brand);
  const continuation = useContinuation(here);
  const signIn = usePasswordSignIn({
    returnTo: here,
    beforeSubmit: async () => {
      setRefusal(undefined);
      return false;
    },
    defaultEmail: props.details.loginHint,
    redirecting: redirecting || continuation.redirecting,
    onSignedIn: ({ next }) => {
      setRedirecting(true);
      // Finished here: the provider's sign-in goes on. Owing a step: its screen, which comes back here after.
      if (next.kind === "provider") props.onSignedIn();
      else continuation.follow(next);
    },
  });
  // Issue #26: the passkey button and autofill, finishing like the password's sign-in.
  const passkey = usePasskeySignIn({
    returnTo: here,
    autofill: true,
    disabled: signIn.isSubmitting || redirecting,
    onSignedIn: (next) => {
      setRedirecting(true);
      if (next.kind === "provider") props.onSignedIn();
      else continuation.follow(next);
    },
  });
  const { t } = useTranslation();
  const tk = useT();
  return (
    <>
      <h1>{props.heading}</h1>
      {refusal ? <Alert kind="error">{tk(refusal)}</Alert> : null}
      {signIn.view}
      {passkey.view}
      <WaysIn
        returnTo={here}
        disabled={signIn.isSubmitting || redirecting}
        onError={setRefusal}
        typedEmail={signIn.typedEmail}
      />
      {/* A person without an account registers, activates by the mailed link, and comes back here to go on. */}
      <p className={styles.create}>
        {t("login.noAccount")} <Link to={routeUrl("REGISTER", { return_to: here })}>{t("login.createAccount")}</Link>
      </p>
    </>
  );
}

/**
 * What a site that is not the vendor's own asks to receive, and for which account (issue #24 §2); the person allows,
 * cancels, or signs out to use another account.
 */
function Consent(props: { client: string; details: Details; busy: boolean; onAllow: () => void; onDeny: () => void }) {
  const { t } = useTranslation();
  const fail = useScreenFailure();
  const [switching, setSwitching] = useState(false);
  const [details, setDetails] = useState(props.details);
  // The screen may have read the sign-in before the person signed in: read it again for the account now shared
  // and what that account has not yet agreed to. Should that fail, Allow and Cancel still report the failure.
  useEffect(() => {
    gateway()
      .call(api.serviceLogin)
      .then(setDetails, () => undefined);
  }, []);
  const { account } = details;
  /**
   * Signs out, then starts the site's request over: the provider opens a new sign-in (the one this screen shows
   * belonged to the session just ended), and this screen comes back with its sign-in form.
   */
  const switchAccount = async () => {
    setSwitching(true);
    try {
      await gateway().call(api.logout, { body: {} });
      window.location.assign(details.restartUrl);
    } catch (error) {
      setSwitching(false);
      fail(error);
    }
  };
  return (
    <>
      <h1>{t("serviceLogin.consentHeading", { client: props.client })}</h1>
      {account ? (
        <div className={styles.account}>
          <p>{t("serviceLogin.sharedAccount", { client: props.client })}</p>
          <p className={styles.who}>
            {account.name ? <strong>{account.name}</strong> : null}
            <span>{account.email}</span>
          </p>
          <Button variant="link" onClick={() => void switchAccount()} busy={switching} disabled={props.busy}>
            {t("serviceLogin.otherAccount")}
          </Button>
        </div>
      ) : null}
      <p>{t("serviceLogin.consentIntro", { client: props.client })}</p>
      <ul className={styles.scopes}>
        {details.consent.map((scope) => (
          <li key={scope}>{t(`serviceLogin.scopes.${scope}`, { brand: BRANDS[details.client.brand].name })}</li>
        ))}
      </ul>
      <div className={styles.actions}>
        <Button onClick={props.onAllow} busy={props.busy} disabled={switching}>
          {t("serviceLogin.allow")}
        </Button>
        <Button variant="secondary" onClick={props.onDeny} disabled={props.busy || switching}>
          {t("serviceLogin.deny")}
        </Button>
      </div>
    </>
  );
}
