import { type Brand, type ReturnPolicy, safeReturnTo, trialAddress } from "@gatehouse/contract";

/**
 * Where a trial ends (issue #12, spec §2 "Trial flow" 2 and §4): the product site's return address when it is an
 * allowed one, else the brand's trial address, told whether the account is new and which product's trial it is.
 */
export function trialDestination(
  returnTo: string | null,
  policy: ReturnPolicy,
  brand: Brand,
  trial: { isNewAccount: boolean; productCode?: string | undefined },
): string {
  const { isNewAccount, productCode } = trial;
  return (
    safeReturnTo(returnTo, policy, "") || trialAddress(brand, { isNewAccount, ...(productCode ? { productCode } : {}) })
  );
}

/** Error keys of a trial's activation link that a new sign-up mends: the expired-link page says so. */
const EXPIRED = new Set(["errors.code_expired", "errors.code_superseded", "errors.code_invalid"]);

/**
 * Where a failed trial activation link goes (spec §8 "Activation of a trial"): a link already used means the account
 * is active, so the trial's destination; an expired, replaced or unknown link, the expired-link page; anything else
 * stays on the activation page's own error (undefined).
 */
export function trialActivationFailure(
  errorKey: string,
  returnTo: string | null,
  policy: ReturnPolicy,
  brand: Brand,
  productCode?: string,
): { leave: string } | { expired: true } | undefined {
  if (errorKey === "errors.code_used" || errorKey === "errors.account_already_active")
    return { leave: trialDestination(returnTo, policy, brand, { isNewAccount: true, productCode }) };
  if (EXPIRED.has(errorKey)) return { expired: true };
  return undefined;
}
