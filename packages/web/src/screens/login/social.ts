import { api, type HostSettings } from "@gatehouse/contract";
import { ApiError, errorKey, gateway, isScreenFailure } from "../../api/index.ts";

export type Platform = "google" | "facebook" | "trimble";

/**
 * The providers whose buttons a page shows: Google and Facebook under SOCIAL_REGISTER, Trimble under its own flag
 * (TRIMBLE_LOGIN on sign-in, TRIMBLE_REGISTER on sign-up), each only when IDPS_FILE sets it up.
 */
export function offeredPlatforms(settings: HostSettings, trimble: boolean): Platform[] {
  return settings.socialPlatforms.filter((p) => (p === "trimble" ? trimble : settings.flags.SOCIAL_REGISTER));
}

/**
 * Starts a social sign-in (or sign-up, with autoRegister) and leaves for the provider. Spec §4: a 422 (the provider
 * cannot be reached) reloads the page; other failures go to `onError` as an i18n key, or to the shell's retry
 * screen for 5xx and network trouble. `prompt: "select_account"` asks the provider for its account chooser.
 */
export async function startSocialSignIn(
  platform: Platform,
  options: {
    returnTo: string | null;
    autoRegister: boolean;
    prompt?: "login" | "select_account";
    fail: (error: unknown) => void;
    onError: (key: string) => void;
  },
): Promise<void> {
  try {
    const { redirect_to } = await gateway().call(api.socialLogin, {
      body: {
        platform,
        continue: options.returnTo ?? undefined,
        auto_register: options.autoRegister,
        prompt: options.prompt,
      },
    });
    window.location.assign(redirect_to);
  } catch (error) {
    if (error instanceof ApiError && error.status === 422) return window.location.reload();
    if (isScreenFailure(error)) return options.fail(error);
    options.onError(errorKey(error));
  }
}
