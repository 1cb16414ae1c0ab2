import { api } from "@gatehouse/contract";
import { errorKey, gateway, isScreenFailure } from "../../api/index.ts";

export type Platform = "google" | "facebook" | "trimble";

/**
 * Starts a social sign-in (or sign-up, with autoRegister) and leaves for the provider; failures go to `onError`
 * as an i18n key, or to the shell's retry screen for 5xx and network trouble.
 */
export async function startSocialSignIn(
  platform: Platform,
  options: {
    returnTo: string | null;
    autoRegister: boolean;
    fail: (error: unknown) => void;
    onError: (key: string) => void;
  },
): Promise<void> {
  try {
    const { redirect_to } = await gateway().call(api.socialLogin, {
      body: { platform, continue: options.returnTo ?? undefined, auto_register: options.autoRegister },
    });
    window.location.assign(redirect_to);
  } catch (error) {
    if (isScreenFailure(error)) return options.fail(error);
    options.onError(errorKey(error));
  }
}
