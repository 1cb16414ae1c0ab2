import { type RouteId, routeUrl, trialProductCode } from "@gatehouse/contract";
import { useApp } from "../../app/context.tsx";
import { useSearchParams } from "../../app/routing.tsx";
import { tabStorage } from "../../app/tab-storage.ts";

/**
 * The address a visitor gave on the trial's first screen, for the screens after it (login, register, recovery),
 * and the address a trial sign-up was made with, for its success screen. Both live in this tab's sessionStorage,
 * never in a URL (ASVS 14.2.1: no personal data in addresses that end up in logs, history and Referer;
 * docs/decisions.md "Trial flow: the address in sessionStorage").
 */
const EMAIL_KEY = "gatehouse.trialEmail";
const REGISTERED_KEY = "gatehouse.trialRegistered";

/** Storage that may be missing or refuse (a privacy mode): the flow then starts again at the email check. */
const storage = tabStorage;

export function rememberTrialEmail(email: string): void {
  storage()?.setItem(EMAIL_KEY, email);
}

export function trialEmail(): string | undefined {
  return storage()?.getItem(EMAIL_KEY) || undefined;
}

export function rememberTrialRegistered(email: string): void {
  storage()?.setItem(REGISTERED_KEY, email);
}

export function trialRegistered(): string | undefined {
  return storage()?.getItem(REGISTERED_KEY) || undefined;
}

/**
 * Forgets the addresses once the trial has started or the person signs out, so the next person at this tab (a
 * shared computer) does not find them filled in.
 */
export function forgetTrialFlow(): void {
  const kept = storage();
  kept?.removeItem(EMAIL_KEY);
  kept?.removeItem(REGISTERED_KEY);
}

export type TrialRouteId = Extract<
  RouteId,
  | "TRIAL_EMAIL_CHECK"
  | "TRIAL_EMAIL_CONFIRM"
  | "TRIAL_LOGIN"
  | "TRIAL_REGISTER"
  | "TRIAL_REGISTER_SUCCESS"
  | "TRIAL_EXPIRED_LINK"
  | "TRIAL_PASSWORD_RECOVER"
>;

/** A trial screen's address with the query every trial screen passes on (`productCode`, `return_to`) as it came. */
export function trialUrl(id: TrialRouteId, query: URLSearchParams): string {
  return routeUrl(id, {
    productCode: query.get("productCode") ?? undefined,
    return_to: query.get("return_to") ?? undefined,
  });
}

/**
 * What every trial screen reads of its query: the return address, the product code (the address's when valid,
 * else the deployment's TRIAL_PRODUCT_CODE) and the addresses of the other trial screens with the same query.
 */
export function useTrialQuery() {
  const [params] = useSearchParams();
  const { settings } = useApp();
  return {
    returnTo: params.get("return_to"),
    productCode: trialProductCode(params.get("productCode"), settings.trialProductCode),
    url: (id: TrialRouteId) => trialUrl(id, params),
  };
}
