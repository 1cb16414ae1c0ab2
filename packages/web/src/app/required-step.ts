import { type RequiredStep, type ReturnPolicy, type RouteId, routeUrl, safeReturnTo } from "@gatehouse/contract";

/** The screen of each step a session may owe (the server decides it: GET /session's RequiredStep). */
export const STEP_ROUTES: Record<RequiredStep, RouteId> = {
  password_change: "PASSWORD_CHANGE",
  profile_update: "ACCOUNT_EDIT",
};

/** The address of an owed step's screen, with an allowed return address for after it. */
export function stepAddress(step: RequiredStep, returnTo: string | null, policy: ReturnPolicy): string {
  const return_to = safeReturnTo(returnTo, policy, "") || undefined;
  if (step === "password_change") return routeUrl("PASSWORD_CHANGE", { required_password_update: "true", return_to });
  return routeUrl(STEP_ROUTES[step], { return_to });
}

/** Screens a person who owes a step may still see: sign-out (the step's own screen aside). */
const OPEN_WHILE_OWED: ReadonlySet<RouteId> = new Set(["LOGOUT"]);

/**
 * Where a signed-in person who owes a step must go instead of the address they opened (issue #10 §1), so a
 * reload, a deep link or a typed address cannot skip it; undefined when the address may stay. The server refuses
 * the other account calls anyway (403 `required_step`): this only spares the person a screen that cannot work.
 */
export function owedStepRedirect(
  id: RouteId | undefined,
  step: RequiredStep | null | undefined,
  search: string,
  policy: ReturnPolicy,
): string | undefined {
  if (!step || id === undefined || id === STEP_ROUTES[step] || OPEN_WHILE_OWED.has(id)) return undefined;
  return stepAddress(step, new URLSearchParams(search).get("return_to"), policy);
}
