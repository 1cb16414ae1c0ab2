import { type AnswerOf, api, checkReturnTo, DEFAULT_COUNTRY, ProfileBody, routeUrl } from "@gatehouse/contract";
import { type MouseEvent, useEffect, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { z } from "zod/mini";
import { ApiError, applyFieldErrors, errorKey, gateway, isScreenFailure } from "../../api/index.ts";
import { useApp } from "../../app/context.tsx";
import { useScreenFailure } from "../../app/failure.tsx";
import { Layout } from "../../app/Layout.tsx";
import { useStepScreen } from "../../app/owed-step.ts";
import { Link, useSearchParams } from "../../app/routing.tsx";
import { usePageTitle } from "../../app/title.ts";
import { Alert } from "../../ui/Alert.tsx";
import { Button } from "../../ui/Button.tsx";
import { Field } from "../../ui/Field.tsx";
import { useForm } from "../../ui/form/useForm.ts";
import { PasswordField } from "../../ui/PasswordField.tsx";
import { Select } from "../../ui/Select.tsx";
import { Spinner } from "../../ui/Spinner.tsx";
import { useT } from "../../ui/useT.ts";
import { useContinuation } from "../login/continue.ts";
import { failureGuid, useFailureDetail } from "../system/ApiErrorScreen.tsx";
import styles from "./EditProfile.module.css";
import { LinkedIdentities } from "./LinkedIdentities.tsx";
import { SetPassword } from "./SetPassword.tsx";
import { SecuritySection } from "./security/SecuritySection.tsx";

type Profile = AnswerOf<typeof api.profile>;
type FormInput = { firstName: string; lastName: string; countryCode: string };
const Form = z.pick(ProfileBody, { firstName: true, lastName: true, countryCode: true });

/** Edit profile (spec §2, §4 unsaved changes, issue #5 deletion request). Login required (router loader). */
export default function EditProfile() {
  const [params] = useSearchParams();
  const { brand, returnPolicy } = useApp();
  const { t, i18n } = useTranslation();
  const tk = useT();
  const fail = useScreenFailure();
  usePageTitle(t("titles.editAccount"));
  const [profile, setProfile] = useState<Profile>();
  const [countries, setCountries] = useState<{ code: string; name: string }[]>([]);
  const [saved, setSaved] = useState(false);
  const [error, setError] = useState<string>();
  const [saveFailure, setSaveFailure] = useState<unknown>();
  const form = useForm(Form);
  const { errors, isSubmitting, isDirty } = form.formState;
  const returnTo = checkReturnTo(params.get("return_to"), returnPolicy);
  // Opened as the profile step a sign-in attempt owes (issue #24): no session yet; Save finishes the sign-in.
  const screen = useStepScreen("profile_update");
  const attempt = screen.kind === "attempt" ? screen : undefined;
  const { follow } = useContinuation(params.get("return_to"));

  // The profile fills the form once; after that the form is the person's (a language switch or a retry after a
  // failure runs this again and must not put the stored values back over unsaved edits).
  // biome-ignore lint/correctness/useExhaustiveDependencies: form is stable; fail too.
  useEffect(() => {
    if (profile || screen.kind === "checking") return;
    gateway()
      .call(api.profile)
      .then(
        (loaded) => {
          setProfile(loaded);
          // An unknown country (ZZ: a company's account made without one) is no choice: the select asks for one.
          const countryCode = loaded.countryCode === DEFAULT_COUNTRY ? "" : loaded.countryCode;
          form.reset({ firstName: loaded.firstName, lastName: loaded.lastName, countryCode });
        },
        (failure: unknown) => (isScreenFailure(failure) ? fail(failure) : setError("network.unexpected")),
      );
  }, [profile, screen.kind]);

  // Country names follow the UI language; the chosen code stays as it is.
  // biome-ignore lint/correctness/useExhaustiveDependencies: fail is stable.
  useEffect(() => {
    gateway()
      .call(api.countries)
      .then(setCountries, (failure: unknown) => (isScreenFailure(failure) ? fail(failure) : undefined));
  }, [i18n.language]);

  // Spec §4: unsaved edits warn on leaving, closing the tab included.
  useEffect(() => {
    if (!isDirty) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener("beforeunload", warn);
    return () => window.removeEventListener("beforeunload", warn);
  }, [isDirty]);
  const guard = (event: MouseEvent) => {
    if (isDirty && !window.confirm(t("profile.leaveWarning"))) event.preventDefault();
  };

  // In the server's order: the way people look for names in this language (Register says why).
  const options = useMemo(() => countries.map((c) => ({ value: c.code, label: c.name })), [countries]);

  const onSubmit = form.handleSubmit(async (values) => {
    setError(undefined);
    setSaveFailure(undefined);
    setSaved(false);
    try {
      const answer = await gateway().call(api.updateProfile, { body: values });
      form.reset(values);
      if (answer.next) return follow(answer.next);
      setSaved(true);
    } catch (failure) {
      // Spec §2 "A profile error shows under the button": a 5xx or a lost connection too, with the form intact.
      if (isScreenFailure(failure)) return setSaveFailure(failure);
      applyFieldErrors(failure, (field, message) => form.setError(field as keyof FormInput, { message }));
      setError(errorKey(failure));
    }
  });

  // The country select shows its value only once its options exist.
  if (!profile || countries.length === 0) {
    return (
      <Layout>{error ? <Alert kind="error">{tk(error)}</Alert> : <Spinner label={t("profile.loading")} />}</Layout>
    );
  }
  const showCustomerNumber = !brand.traits.hideCustomerNumber && profile.customerNumber !== "";
  return (
    <Layout>
      <h1>{t("profile.heading")}</h1>
      {attempt ? (
        // Why the profile is asked before the sign-in goes on (issue #24 §3): the country, or the names too.
        <Alert kind="info">
          {profile.firstName && profile.lastName ? t("profile.stepIntro") : t("profile.stepDetails")}
        </Alert>
      ) : null}
      {saved ? (
        <Alert kind="success">
          <p>{t("profile.updated")}</p>
          {returnTo ? <a href={returnTo}>{t("profile.backToSite", { site: new URL(returnTo).host })}</a> : null}
        </Alert>
      ) : null}
      <form onSubmit={onSubmit} noValidate>
        <Field label={t("profile.email")} type="email" value={profile.email} readOnly />
        <Field
          label={t("profile.firstName")}
          autoComplete="given-name"
          error={errors.firstName?.message}
          {...form.register("firstName")}
        />
        <Field
          label={t("profile.lastName")}
          autoComplete="family-name"
          error={errors.lastName?.message}
          {...form.register("lastName")}
        />
        <Select
          label={t("profile.country")}
          placeholder={t("register.countryPlaceholder")}
          options={options}
          error={errors.countryCode?.message}
          {...form.register("countryCode")}
        />
        {showCustomerNumber ? (
          <Field label={t("profile.customerNumber")} value={profile.customerNumber} readOnly />
        ) : null}
        <Button type="submit" disabled={isSubmitting}>
          {t("profile.save")}
        </Button>
        {error ? <Alert kind="error">{tk(error)}</Alert> : null}
        {saveFailure ? <SaveFailure failure={saveFailure} onRetry={() => void onSubmit()} busy={isSubmitting} /> : null}
      </form>
      <nav className={styles.links}>
        {profile.passwordAllowed && !attempt ? (
          <Link to={routeUrl("PASSWORD_CHANGE", { return_to: routeUrl("ACCOUNT_EDIT") })} onClick={guard}>
            {t("profile.changePassword")}
          </Link>
        ) : null}
        <Link to={routeUrl("LOGOUT")} onClick={guard}>
          {t("profile.logout")}
        </Link>
      </nav>
      {/* A sign-in attempt may make only its step's calls (issue #24): the rest needs the finished sign-in. */}
      {attempt || profile.passwordAllowed ? null : <SetPassword email={profile.email} />}
      {attempt ? null : <SecuritySection email={profile.email} />}
      {attempt ? null : <LinkedIdentities />}
      {attempt ? null : <DeleteRequest email={profile.email} withPassword={profile.passwordAllowed} />}
    </Layout>
  );
}

/** A save that did not reach the server or failed there: what happened, its reference, and a retry. */
function SaveFailure({ failure, onRetry, busy }: { failure: unknown; onRetry: () => void; busy: boolean }) {
  const { t } = useTranslation();
  const guid = failureGuid(failure);
  return (
    <Alert kind="error">
      <p>{t("profile.saveFailed")}</p>
      <p>{useFailureDetail(failure)}</p>
      {guid ? <p>{t("app.ref", { id: guid })}</p> : null}
      <Button variant="secondary" onClick={onRetry} disabled={busy}>
        {t("apiError.retry")}
      </Button>
    </Alert>
  );
}

/** "Delete my account": the password re-confirms the person, then a link is mailed (issue #5). */
function DeleteRequest({ email, withPassword }: { email: string; withPassword: boolean }) {
  const { t } = useTranslation();
  const tk = useT();
  const fail = useScreenFailure();
  const [password, setPassword] = useState("");
  const [state, setState] = useState<{ kind: "idle" | "busy" | "sent" } | { kind: "error"; key: string }>({
    kind: "idle",
  });
  const submit = async () => {
    setState({ kind: "busy" });
    try {
      await gateway().call(api.deleteRequest, { body: withPassword ? { password } : {} });
      setState({ kind: "sent" });
    } catch (failure) {
      if (isScreenFailure(failure)) return fail(failure);
      const field = failure instanceof ApiError ? failure.answer.fields?.[0]?.message : undefined;
      setState({
        kind: "error",
        key: field ?? errorKey(failure),
      });
    }
  };
  return (
    <section className={styles.danger} aria-labelledby="delete-heading">
      <h2 id="delete-heading">{t("profile.deleteHeading")}</h2>
      {state.kind === "sent" ? (
        <Alert kind="success">{t("profile.deleteSent", { email })}</Alert>
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void submit();
          }}
          noValidate
        >
          <p>{withPassword ? t("profile.deleteIntro") : t("profile.deleteIntroNoPassword")}</p>
          {withPassword ? (
            <PasswordField
              label={t("profile.deletePassword")}
              autoComplete="current-password"
              value={password}
              onChange={(event) => setPassword(event.target.value)}
              error={state.kind === "error" ? state.key : undefined}
            />
          ) : null}
          {!withPassword && state.kind === "error" ? <Alert kind="error">{tk(state.key)}</Alert> : null}
          <Button type="submit" variant="danger" busy={state.kind === "busy"}>
            {t("profile.deleteRequest")}
          </Button>
        </form>
      )}
    </section>
  );
}
