import { type api, isPasswordPolicyCode } from "@gatehouse/contract";
import type { z } from "zod";
import { activateAccount } from "../accounts/activation.ts";
import { setupPassword } from "../accounts/recovery.ts";
import { audit } from "../audit/audit.ts";
import type { ClientMeta } from "../sessions/sessions.ts";
import type { Db } from "../store/db.ts";
import { proofOf, type Verified } from "./proofs.ts";

/**
 * The mailed one-time codes that prove who someone is (issue #24 §1): the activation link's, and the set-up link's
 * (an invited person choosing a password). Each spends its code once (codes/codes.ts) and proves the mailbox
 * (accounts/mailbox.ts). The reset link's code proves the mailbox too but signs nobody in (spec §4: the person signs
 * in with the new password), so it is no verifier here.
 */

/** The activation link's code; `browser` is the browser's cookie token (a provider's sign-up keeps its identity). */
export async function verifyActivation(db: Db, code: string, browser: string, now = Date.now()): Promise<Verified> {
  const outcome = await activateAccount(db, code, browser, now);
  if (!outcome.ok) return { ok: false, refusal: { code: outcome.refusal, temporary: false } };
  return { ok: true, proof: proofOf(outcome.user, "activation") };
}

type MarketingInfo = z.output<(typeof api.setupPassword)["body"]>["marketingInfo"];

/** The set-up link's code with the password it sets (the password policy refuses before the code is spent). */
export async function verifySetup(
  db: Db,
  input: { code: string; password: string; marketingInfo: MarketingInfo; client: ClientMeta },
  now = Date.now(),
): Promise<Verified> {
  const outcome = await setupPassword(db, input.code, input.password, input.marketingInfo, now);
  if (!outcome.ok) {
    const { refusal } = outcome;
    if (isPasswordPolicyCode(refusal)) return { ok: false, refusal: { code: refusal, field: "password" } };
    return { ok: false, refusal: { code: refusal, temporary: false } };
  }
  const { ip, userAgent } = input.client;
  await audit(db, "password_setup", { userId: outcome.user.id, ip, userAgent }, now);
  return { ok: true, proof: proofOf(outcome.user, "password_setup") };
}
