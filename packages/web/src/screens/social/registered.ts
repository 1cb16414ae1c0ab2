import { SocialRegisterAnswer } from "@gatehouse/contract";
import { z } from "zod/mini";

/**
 * What social registration hands to its complete screen (REGISTER_SOCIAL_COMPLETE has no query, spec §2): the
 * answer of POST /account/social/register and where the person goes next. It travels in the history entry's state
 * and, so that a reload of the complete screen still has it, in this tab's sessionStorage (docs/decisions.md).
 */
const SocialRegistered = z.extend(SocialRegisterAnswer, { returnTo: z.optional(z.string()) });
export type SocialRegistered = z.infer<typeof SocialRegistered>;

const KEY = "gatehouse.socialRegistered";
const STATE_KEY = "socialRegistered";

/** Keeps the registration for its complete screen; answers the history state to navigate with. */
export function rememberRegistered(done: SocialRegistered): Record<string, SocialRegistered> {
  sessionStorage.setItem(KEY, JSON.stringify(done));
  return { [STATE_KEY]: done };
}

/** The registration from the history entry, else from this tab's storage; undefined when there was none. */
export function recallRegistered(state: unknown): SocialRegistered | undefined {
  const fromState = SocialRegistered.safeParse((state as Record<string, unknown> | null)?.[STATE_KEY]);
  if (fromState.success) return fromState.data;
  try {
    const stored = SocialRegistered.safeParse(JSON.parse(sessionStorage.getItem(KEY) ?? "null"));
    return stored.success ? stored.data : undefined;
  } catch {
    return undefined;
  }
}

/** Once the person has gone on, the complete screen has nothing to show again. */
export function forgetRegistered(): void {
  sessionStorage.removeItem(KEY);
}
