import { api, type NextStep as Next, type PasskeyRequestOptions } from "@gatehouse/contract";
import type { PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/browser";
import { type ReactNode, useCallback, useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import type { z } from "zod/mini";
import { ApiError, gateway, isScreenFailure } from "../../api/index.ts";
import { useScreenFailure } from "../../app/failure.tsx";
import { sessionAnswer } from "../../app/session.ts";
import { Alert } from "../../ui/Alert.tsx";
import { Button } from "../../ui/Button.tsx";
import { useT } from "../../ui/useT.ts";
import styles from "./passkey.module.css";

/**
 * Passkey sign-in (issue #26) on the sign-in page, a site's sign-in (/service_login) and the second-factor screen.
 * The WebAuthn library loads only when a ceremony starts (a dynamic import): the sign-in route stays within its
 * budget, and a browser without conditional mediation never loads it until the button is pressed.
 */
let library: typeof import("@simplewebauthn/browser") | undefined;
async function webauthn() {
  library ??= await import("@simplewebauthn/browser");
  return library;
}

type Options = z.infer<typeof PasskeyRequestOptions>;

/**
 * Does the browser offer passkeys in the e-mail field's autofill (conditional mediation)? Asked of the browser
 * itself, as the library's browserSupportsWebAuthnAutofill does, so a page load costs no library download.
 */
async function autofillAvailable(): Promise<boolean> {
  const credential = globalThis.PublicKeyCredential as
    | { isConditionalMediationAvailable?: () => Promise<boolean> }
    | undefined;
  return Boolean(await credential?.isConditionalMediationAvailable?.().catch(() => false));
}

const fromBase64url = (text: string) =>
  Uint8Array.from(atob(text.replace(/-/gu, "+").replace(/_/gu, "/")), (c) => c.charCodeAt(0));
const toBase64url = (bytes: ArrayBuffer) =>
  btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replace(/\+/gu, "-")
    .replace(/\//gu, "_")
    .replace(/=+$/u, "");

/** The pending autofill request: ended before a modal one starts, and when the page is left (back/forward cache). */
let autofill: AbortController | undefined;
/** That request, settled once the browser has ended it: a new request before then is refused as one too many. */
let autofillSettled: Promise<unknown> = Promise.resolve();

/**
 * The autofill request in a few lines of the browser's own API (issue #26: the sign-in route loads no WebAuthn
 * library for it): the options decoded, the assertion encoded as the server reads it (AuthenticationResponseJSON).
 */
async function autofillAssertion(options: Options) {
  autofill?.abort();
  autofill = new AbortController();
  const request = navigator.credentials.get({
    mediation: "conditional",
    signal: autofill.signal,
    publicKey: {
      challenge: fromBase64url(options.challenge),
      ...(options.rpId ? { rpId: options.rpId } : {}),
      ...(options.timeout ? { timeout: options.timeout } : {}),
      ...(options.userVerification ? { userVerification: options.userVerification } : {}),
      allowCredentials: (options.allowCredentials ?? []).map((c) => ({ type: c.type, id: fromBase64url(c.id) })),
    },
  });
  autofillSettled = request.catch(() => undefined);
  const credential = (await request) as PublicKeyCredential;
  const answer = credential.response as AuthenticatorAssertionResponse;
  return {
    id: credential.id,
    rawId: toBase64url(credential.rawId),
    type: "public-key" as const,
    clientExtensionResults: {},
    response: {
      clientDataJSON: toBase64url(answer.clientDataJSON),
      authenticatorData: toBase64url(answer.authenticatorData),
      signature: toBase64url(answer.signature),
      ...(answer.userHandle ? { userHandle: toBase64url(answer.userHandle) } : {}),
    },
  };
}

/** The person closed the browser's dialog, or a newer ceremony replaced this one: not a failure to report. */
function isCancelled(error: unknown): boolean {
  const name = (error as { name?: string; cause?: { name?: string } } | null)?.name;
  const code = (error as { code?: string } | null)?.code;
  return name === "AbortError" || name === "NotAllowedError" || code === "ERROR_CEREMONY_ABORTED";
}

/**
 * One ceremony: the server's options for this browser (usernameless, or the account's passkeys for an attempt that
 * owes the second factor), the authenticator's answer, the server's verdict: where the person goes next.
 */
async function passkeyCeremony(returnTo: string | null, conditional: boolean): Promise<Next> {
  if (!conditional) {
    autofill?.abort();
    await autofillSettled;
  }
  const options: Options = await gateway().call(api.passkeyOptions, { body: {} });
  const response = conditional
    ? await autofillAssertion(options)
    : await (await webauthn()).startAuthentication({ optionsJSON: options as PublicKeyCredentialRequestOptionsJSON });
  const body = { response, ...(returnTo ? { returnTo } : {}) };
  const answer = await gateway().call(api.passkeySignIn, { body: body as never });
  if (!answer.next) throw new Error("a passkey sign-in answered no next step");
  return answer.next;
}

export interface PasskeySignInOptions {
  returnTo: string | null;
  disabled?: boolean;
  /** Offer passkeys in the e-mail field's autofill from the start (the sign-in pages; not the second factor's). */
  autofill?: boolean;
  /** The button's words: "Sign in with a passkey", or the second factor's "Use a passkey". */
  label?: string;
  onSignedIn: (next: Next) => void;
}

/** The passkey button (a modal ceremony) and, where the browser has it, passkeys offered in the e-mail's autofill. */
export function usePasskeySignIn(options: PasskeySignInOptions): { view: ReactNode; busy: boolean } {
  const { returnTo, onSignedIn } = options;
  const { t } = useTranslation();
  const tk = useT();
  const fail = useScreenFailure();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  const run = useCallback(
    async (autofill: boolean) => {
      if (!autofill) {
        setError(undefined);
        setBusy(true);
      }
      try {
        onSignedIn(await passkeyCeremony(returnTo, autofill));
      } catch (failure) {
        if (isScreenFailure(failure)) return fail(failure);
        // The autofill's pending request ends when the button starts a modal one: nothing to say.
        if (isCancelled(failure)) return autofill ? undefined : setError("passkey.notCompleted");
        // An autofill the browser could not run (one that offers conditional mediation yet refuses a usernameless
        // request, as Chromium's headless shell does) is not the person's doing: they asked for nothing, and the
        // button is there. Only the server's verdict on a passkey they chose is said.
        if (autofill && !(failure instanceof ApiError)) return;
        setError(failure instanceof ApiError ? `errors.${failure.code}` : "passkey.failed");
      } finally {
        if (!autofill) setBusy(false);
      }
    },
    [returnTo, onSignedIn, fail],
  );

  // Conditional mediation: started on load, while the e-mail field (autocomplete "username webauthn") is there. A
  // pending request keeps a page out of the back/forward cache: it ends when the page is left, and starts again when
  // the page comes back from the cache.
  // biome-ignore lint/correctness/useExhaustiveDependencies: once per page.
  useEffect(() => {
    if (!options.autofill) return;
    let live = true;
    // After the session's answer, which carries the CSRF token the options call needs. When the session call failed,
    // the retry screen is up: no autofill (a call without the token is refused, and a refusal reloads the page).
    const start = () =>
      void Promise.all([autofillAvailable(), sessionAnswer()]).then(
        ([available]) => {
          if (available && live) void run(true);
        },
        () => undefined,
      );
    const leave = () => autofill?.abort();
    const back = (event: PageTransitionEvent) => event.persisted && start();
    start();
    window.addEventListener("pagehide", leave);
    window.addEventListener("pageshow", back);
    return () => {
      live = false;
      leave();
      library?.WebAuthnAbortService.cancelCeremony();
      window.removeEventListener("pagehide", leave);
      window.removeEventListener("pageshow", back);
    };
  }, []);

  const view = (
    <div className={styles.passkey}>
      {error ? <Alert kind="error">{tk(error)}</Alert> : null}
      <Button variant="secondary" busy={busy} disabled={options.disabled} onClick={() => void run(false)}>
        {options.label ?? t("passkey.signIn")}
      </Button>
    </div>
  );
  return { view, busy };
}
