import {
  type AnswerOf,
  type api,
  type BrandId,
  isBrandId,
  PRODUCT_CODE_PATTERN,
  TRIALS_PER_ACCOUNT_MAX,
} from "@gatehouse/contract";
import type { Db } from "../store/db.ts";
import type { TrialRow, UserRow } from "../store/schema.ts";
import { trialsStore } from "../store/trials.ts";

export type TrialAnswer = AnswerOf<typeof api.trialStart>;
export type TrialOutcome = { ok: true; trial: TrialAnswer } | { ok: false; refusal: "trial_limit_reached" };

/** Spec §7: a call is in trial mode with `isTrial`, or `isEnscapeTrial` from the Enscape brand's pages. */
export const inTrialMode = (body: { isTrial?: boolean | undefined; isEnscapeTrial?: boolean | undefined }): boolean =>
  body.isTrial === true || body.isEnscapeTrial === true;

const answerOf = (row: TrialRow, started: boolean): TrialAnswer => ({
  productCode: row.product_code,
  startedAt: new Date(row.started_at).toISOString(),
  started,
});

/**
 * Starts an account's trial of a product on a brand's site (issue #12); a product's trial starts once, so a second
 * start answers the first one's date. Only a proven person gets here: a trial-mode sign-in, the activation of a trial
 * sign-up, or a signed-in visitor's "Start your trial".
 */
export async function startTrial(
  db: Db,
  user: UserRow,
  trial: { productCode: string; brand: BrandId },
  now = Date.now(),
): Promise<TrialOutcome> {
  const outcome = await trialsStore.start(db, {
    user_id: user.id,
    product_code: trial.productCode,
    brand: trial.brand,
    started_at: now,
  });
  if (outcome.outcome === "limit") return { ok: false, refusal: "trial_limit_reached" };
  return { ok: true, trial: answerOf(outcome.trial, outcome.outcome === "started") };
}

/**
 * The trial a sign-up asked for (registration's `isTrial`/`isEnscapeTrial` and `productCode`), when it did. A stored
 * code that is not one by today's rule (a sign-up from before the rule) counts as none: the default is used instead.
 */
export function signupTrial(user: UserRow): { productCode: string | undefined } | undefined {
  let meta: { isTrial?: unknown; isEnscapeTrial?: unknown; productCode?: unknown };
  try {
    meta = user.signup_meta ? JSON.parse(user.signup_meta) : {};
  } catch {
    return undefined;
  }
  if (meta.isTrial !== true && meta.isEnscapeTrial !== true) return undefined;
  const code = meta.productCode;
  return { productCode: typeof code === "string" && PRODUCT_CODE_PATTERN.test(code) ? code : undefined };
}

/**
 * Starts the trial a sign-up asked for once its address is proven (issue #12), whichever way it was: the activation
 * link, with or without signing in, or a password reset of the pending account. On the brand it signed up on.
 */
export async function startSignupTrial(
  db: Db,
  user: UserRow,
  defaults: { productCode: string; brand: BrandId },
  now = Date.now(),
): Promise<TrialAnswer | null> {
  const trial = signupTrial(user);
  if (!trial || user.status !== "active") return null;
  const brand = isBrandId(user.brand) ? user.brand : defaults.brand;
  const started = await startTrial(db, user, { productCode: trial.productCode ?? defaults.productCode, brand }, now);
  return started.ok ? started.trial : null;
}

/**
 * Whether a start of this product's trial would be refused for the cap: asked before a trial-mode sign-in opens its
 * session, so a refusal does not leave the person signed in while the page says it failed.
 */
export async function trialWouldBeRefused(db: Db, userId: string, productCode: string): Promise<boolean> {
  const trials = await trialsStore.listForUser(db, userId);
  return trials.length >= TRIALS_PER_ACCOUNT_MAX && !trials.some((trial) => trial.product_code === productCode);
}

/** The account's trials for its token's `trials` claim (oidc/account.ts): product, brand, start in seconds. */
export async function trialClaims(db: Db, userId: string) {
  const rows = await trialsStore.listForUser(db, userId);
  return rows.map((row) => ({
    product_code: row.product_code,
    brand: row.brand,
    started_at: Math.floor(row.started_at / 1000),
  }));
}
