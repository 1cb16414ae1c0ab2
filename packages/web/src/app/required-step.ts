import { type RequiredStep, type RouteId, STEP_ROUTES, stepUrl } from "@gatehouse/contract";

/** Screens a person who owes a step may still see: sign-out, and sign-in, which sends a signed-in person on itself. */
const OPEN_WHILE_OWED: ReadonlySet<RouteId> = new Set(["LOGOUT", "LOGIN"]);

/**
 * Where a signed-in person who owes a step must go instead of the address they opened (issue #10 §1), so a
 * reload, a deep link or a typed address cannot skip it; undefined when the address may stay. The server refuses
 * the other account calls anyway (403 `required_step`): this only spares the person a screen that cannot work.
 * A return address comes along as it is; the step's screen checks it before using it.
 */
export function owedStepRedirect(
  id: RouteId | undefined,
  step: RequiredStep | null | undefined,
  search: string,
): string | undefined {
  if (!step || id === undefined || id === STEP_ROUTES[step] || OPEN_WHILE_OWED.has(id)) return undefined;
  return stepUrl(step, new URLSearchParams(search).get("return_to") ?? undefined);
}
