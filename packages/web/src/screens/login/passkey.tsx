import { api, type NextStep as Next, type PasskeyRequestOptions } from "@gatehouse/contract";
import type { PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/browser";
import { type ReactNode, useCallback, useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import type { z } from "zod/mini";
import { ApiError, gateway, isScreenFailure } from "../../api/index.ts";
import { useScreenFailure } from "../../app/failure.tsx";
import { Alert } from "../../ui/Alert.tsx";
import { Button } from "../../ui/Button.tsx";
import { useT } from "../../ui/useT.ts";

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
  if (!credential?.isConditionalMediationAvailable) return false;
  if (!(await credential.isConditionalMediationAvailable().catch(() => false))) return false;
  return (await webauthn()).browserSupportsWebAuthnAutofill();
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
async function passkeyCeremony(returnTo: string | null, autofill: boolean): Promise<Next> {
  const options: Options = await gateway().call(api.passkeyOptions, { body: {} });
  const { startAuthentication } = await webauthn();
  const response = await startAuthentication({
    optionsJSON: options as PublicKeyCredentialRequestOptionsJSON,
    useBrowserAutofill: autofill,
  });
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
        setError(failure instanceof ApiError ? `errors.${failure.code}` : "passkey.failed");
      } finally {
        if (!autofill) setBusy(false);
      }
    },
    [returnTo, onSignedIn, fail],
  );

  // Conditional mediation: started once on load, while the e-mail field (autocomplete "username webauthn") is there.
  // biome-ignore lint/correctness/useExhaustiveDependencies: once per page.
  useEffect(() => {
    if (!options.autofill) return;
    let live = true;
    void autofillAvailable().then((available) => {
      if (available && live) void run(true);
    });
    return () => {
      live = false;
      // Leaving the page ends the pending request (the library's abort service, if it was loaded at all).
      library?.WebAuthnAbortService.cancelCeremony();
    };
  }, []);

  const view = (
    <>
      {error ? <Alert kind="error">{tk(error)}</Alert> : null}
      <Button variant="secondary" busy={busy} disabled={options.disabled} onClick={() => void run(false)}>
        {options.label ?? t("passkey.signIn")}
      </Button>
    </>
  );
  return { view, busy };
}
