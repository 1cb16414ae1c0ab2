import type { OwedStep } from "@gatehouse/contract";
import type { UserRow } from "../store/schema.ts";

export type AccountRefusal = "user_not_active" | "user_disabled";

/**
 * The one "is this account usable" check (issue #10 §1): a pending account is not active yet, a disabled one is
 * refused (ASVS 6.3.5 spirit: no sign-in to a disabled account). Every sign-in and every session read asks here.
 */
export function accountRefusal(user: Pick<UserRow, "status">): AccountRefusal | undefined {
  if (user.status === "pending") return "user_not_active";
  if (user.status === "disabled") return "user_disabled";
  return undefined;
}

/** The step a sign-in of the account owes (spec §4): a required password change first, then the profile. */
export function owedStepOf(
  user: Pick<UserRow, "required_password_update" | "required_profile_update">,
): OwedStep | null {
  if (user.required_password_update === 1) return "password_change";
  if (user.required_profile_update === 1) return "profile_update";
  return null;
}
