import type { Brand } from "./brands.ts";
import { PRODUCT_CODE_PATTERN } from "./rules.ts";

/**
 * Issue #12, spec §2 "Trial flow" and §4: a trial ends at the return address when the product site gave one, else
 * at the brand's trial address, which learns whether the account is new and which product's trial it is.
 */
export function trialAddress(brand: Brand, trial: { isNewAccount: boolean; productCode?: string }): string {
  const url = new URL(brand.links.trial);
  url.searchParams.set("isNewAccount", String(trial.isNewAccount));
  if (trial.productCode) url.searchParams.set("productCode", trial.productCode);
  return url.href;
}

/** The product code of the address when it is one, else the deployment's default (TRIAL_PRODUCT_CODE). */
export function trialProductCode(raw: string | null | undefined, fallback: string): string {
  return raw && PRODUCT_CODE_PATTERN.test(raw) ? raw : fallback;
}

/** Spec §7: trial calls carry `isTrial`, or `isEnscapeTrial` on the brand whose product is Enscape. */
export function trialMode(brand: Brand): { isTrial: true } | { isEnscapeTrial: true } {
  return brand.traits.enscapeTrial ? { isEnscapeTrial: true } : { isTrial: true };
}
