import { api, type PasskeyRequestOptions } from "@gatehouse/contract";
import type { PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/browser";
import type { z } from "zod/mini";
import { ApiError, gateway } from "../../api/index.ts";

/**
 * A step-up by passkey (issue #26): the session's own account's passkeys, the browser's modal request, the server's
 * fresh proof (POST /sign-in/passkey with `purpose: "reauthenticate"`). Answers the message's catalog key, or
 * undefined once the proof is recorded. Kept apart from the sign-in route's code: only the step-up dialog loads it.
 */
export async function passkeyStepUp(): Promise<string | undefined> {
  try {
    const body = { purpose: "reauthenticate" as const };
    const options: z.infer<typeof PasskeyRequestOptions> = await gateway().call(api.passkeyOptions, { body });
    const { startAuthentication } = await import("@simplewebauthn/browser");
    const response = await startAuthentication({ optionsJSON: options as PublicKeyCredentialRequestOptionsJSON });
    await gateway().call(api.passkeySignIn, { body: { ...body, response } as never });
    return undefined;
  } catch (failure) {
    const name = (failure as { name?: string } | null)?.name;
    if (name === "NotAllowedError" || name === "AbortError") return "passkey.notCompleted";
    return failure instanceof ApiError ? `errors.${failure.code}` : "passkey.failed";
  }
}
