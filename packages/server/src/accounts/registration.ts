import {
  ACTIVATION_TTL_MS,
  type api,
  emailRule,
  type PasswordPolicyCode,
  registerPasswordRule,
  routeUrl,
  TRIAL_ACTIVATION_TTL_MS,
} from "@gatehouse/contract";
import type { z } from "zod";
import { issueCode } from "../codes/codes.ts";
import { queueUserMail } from "../mail/outbox.ts";
import type { Db } from "../store/db.ts";
import type { UserRow } from "../store/schema.ts";
import { usersStore } from "../store/users.ts";
import { normalizeEmail } from "./identifiers.ts";
import type { Origin } from "./origin.ts";
import { type PasswordContext, passwordRefusal } from "./password-policy.ts";
import { hashPassword } from "./passwords.ts";
import { signupTrial } from "./trials.ts";
import { insertAccount, type NewAccount } from "./users.ts";

type RegisterInput = z.output<(typeof api.register)["body"]>;

/** Is the address's domain one whose people sign in through their company only (spec §5 corporate hint)? */
export function isCorporateDomain(email: string, corporateDomains: readonly string[]): boolean {
  const domain = normalizeEmail(email).split("@")[1];
  return domain !== undefined && corporateDomains.includes(domain);
}

export type FieldCheck = { status: "ok" | "invalid" | "conflict"; message?: string; corporate?: boolean };

/** POST /account/register/validate for an e-mail: format, corporate domain, existing account (pending included). */
export async function checkEmail(db: Db, email: string, corporateDomains: readonly string[]): Promise<FieldCheck> {
  const parsed = emailRule.safeParse(email);
  if (!parsed.success) return { status: "invalid", message: parsed.error.issues[0]?.message };
  const corporate = isCorporateDomain(parsed.data, corporateDomains);
  if (await usersStore.findByEmail(db, normalizeEmail(parsed.data))) {
    return { status: "conflict", message: "validation.email.conflict", corporate };
  }
  return { status: "ok", corporate };
}

/**
 * POST /account/register/validate for a password: the registration rule (8–64), then the password policy with
 * whatever the form knows so far (step 1 has the address; names when the form sends them).
 */
export function checkPassword(password: string, context: PasswordContext): FieldCheck {
  const parsed = registerPasswordRule.safeParse(password);
  if (!parsed.success) return { status: "invalid", message: parsed.error.issues[0]?.message };
  const refusal = passwordRefusal(password, context);
  return refusal ? { status: "invalid", message: `errors.${refusal}` } : { status: "ok" };
}

/**
 * Where the activation link points: straight into the product (sign-in included) when a return address came along,
 * or when the sign-up was a trial's, whose link is marked (`trial=1`, with its product code) so that a failed one
 * leads to the trial's own pages.
 */
export function activationPath(
  returnTo: string | undefined,
  code: string,
  trial?: { productCode: string | undefined },
): string {
  return returnTo || trial
    ? routeUrl("TRIAL_ACTIVATE_LOGIN", {
        code,
        return_to: returnTo,
        trial: trial ? "1" : undefined,
        productCode: trial?.productCode,
      })
    : routeUrl("ACCOUNT_ACTIVATE", { code });
}

export type RegisterOutcome =
  | { ok: true; user: UserRow }
  | { ok: false; refusal: PasswordPolicyCode | "email_conflict" };

/**
 * Creates a pending account and queues its activation mail in one transaction: a crash half way leaves neither
 * an account without its mail nor a mail without its account (issue #3). The caller has checked the human.
 */
export async function registerAccount(
  db: Db,
  input: RegisterInput,
  origin: Origin,
  now = Date.now(),
): Promise<RegisterOutcome> {
  // ASVS 6.2.4/6.2.11: the final call knows the names too, so context words are complete here.
  const refusal = passwordRefusal(input.password, input);
  if (refusal) return { ok: false, refusal };
  const account: NewAccount = {
    email: input.email,
    passwordHash: await hashPassword(input.password),
    firstName: input.firstName,
    lastName: input.lastName,
    countryCode: input.countryCode,
    newsletter: input.newsletterSubscription,
    status: "pending",
    language: origin.language,
    brand: origin.site.brand,
    signupMeta: {
      utmMedium: input.utmMedium,
      utmSource: input.utmSource,
      utmCampaign: input.utmCampaign,
      httpReferer: input.httpReferer,
      returnTo: origin.returnTo,
      productCode: input.productCode,
      isTrial: input.isTrial,
      isEnscapeTrial: input.isEnscapeTrial,
    },
  };
  // Two sign-ups racing for one address: the unique index decides, the loser hears "conflict".
  const user = await insertAccount(db, account, (trx, row) => sendActivation(trx, row, origin, now), now);
  return user ? { ok: true, user } : { ok: false, refusal: "email_conflict" };
}

/** Issues a fresh activation code (older links stop working) and queues its mail. */
export async function sendActivation(db: Db, user: UserRow, origin: Origin, now = Date.now()): Promise<void> {
  // Spec §9: a trial's link is valid for 24 hours (TRIAL_ACTIVATION_TTL_MS), whichever call resends it.
  const trial = signupTrial(user);
  const code = await issueCode(db, user.id, "activation", trial ? TRIAL_ACTIVATION_TTL_MS : ACTIVATION_TTL_MS, now);
  await queueUserMail(db, user, "activation", activationPath(origin.returnTo, code, trial), origin.site, now);
}
