import { type AnswerOf, api, isSocialPlatform, routeUrl, type SocialPlatform } from "@gatehouse/contract";
import { useCallback, useEffect, useState } from "react";
import { gateway, isScreenFailure } from "../../api/index.ts";
import { useScreenFailure } from "../../app/failure.tsx";

export type Pending = AnswerOf<typeof api.socialPending>;

/** What the address's query says of the provider's answer (spec §2): the first frame only, never trusted. */
export interface PendingHint {
  email: string;
  platform?: SocialPlatform;
  firstName: string;
  lastName: string;
  fullName: string;
}

export type PendingState = { status: "loading" } | { status: "ready"; pending: Pending } | { status: "gone" };

/** The query's hint, when it names an address. */
export function hintFrom(params: URLSearchParams): PendingHint | undefined {
  const email = params.get("email");
  if (!email) return undefined;
  const platform = params.get("platform");
  const firstName = params.get("firstName") ?? "";
  const lastName = params.get("lastName") ?? "";
  return {
    email,
    ...(isSocialPlatform(platform) ? { platform } : {}),
    firstName,
    lastName,
    fullName: params.get("fullName") || `${firstName} ${lastName}`.trim(),
  };
}

/** The screen of a pending answer of the other kind (the server's answer decides, not the address). */
export function pendingUrl(pending: Pending): string {
  const returnTo = pending.returnTo;
  if (pending.kind === "link") return routeUrl("LINK_EXISTING_SOCIAL", { email: pending.email, return_to: returnTo });
  return routeUrl("REGISTER_SOCIAL", {
    platform: pending.platform,
    email: pending.email,
    firstName: pending.firstName,
    lastName: pending.lastName,
    fullName: pending.fullName,
    return_to: returnTo,
  });
}

/**
 * The browser's pending social sign-in as the server holds it (GET /account/social/pending, issue #11): the screens
 * show and act on this, so a crafted link cannot make them offer anything. `gone` when nothing waits (expired,
 * used, or started in another browser: 401 social_invalid_authentication); 5xx and network trouble go to the
 * shell's retry screen, after which the call is made again. `reload` asks again (the answer may have changed).
 */
export function usePendingSignIn(): { state: PendingState; reload: () => Promise<Pending | undefined> } {
  const fail = useScreenFailure();
  const [state, setState] = useState<PendingState>({ status: "loading" });
  const reload = useCallback(
    () =>
      gateway()
        .call(api.socialPending)
        .then(
          (pending) => {
            setState({ status: "ready", pending });
            return pending;
          },
          (error: unknown) => {
            if (isScreenFailure(error)) fail(error);
            else setState({ status: "gone" });
            return undefined;
          },
        ),
    [fail],
  );
  const loading = state.status === "loading";
  // Runs again when the screen shows after the retry screen (React's Activity), until an answer came.
  useEffect(() => {
    if (loading) void reload();
  }, [loading, reload]);
  return { state, reload };
}
