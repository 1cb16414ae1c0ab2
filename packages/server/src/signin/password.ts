import type { SignInMethod } from "@gatehouse/contract";
import { signInWithPassword } from "../accounts/sign-in.ts";
import type { AttemptSource } from "../accounts/throttle.ts";
import { audit } from "../audit/audit.ts";
import { counts } from "../metrics/counts.ts";
import type { Db } from "../store/db.ts";
import { proofOf, refused, type Verified } from "./proofs.ts";

/**
 * The password proof (accounts/sign-in.ts is its pipeline: address, find, throttled verify, status, upgrade), with
 * its audit and counts: a refusal is recorded here, never by a route. `method` is what the proof finishes: a
 * password sign-in, or linking a provider's identity behind the account's password (counted as the social sign-in).
 */
export async function verifyPassword(
  db: Db,
  input: { email: string; password: string; source: AttemptSource; method?: SignInMethod; detail?: string },
  now = Date.now(),
): Promise<Verified> {
  const method = input.method ?? "password";
  const outcome = await signInWithPassword(db, input.email, input.password, now, input.source);
  if (outcome.ok) return { ok: true, proof: proofOf(outcome.user, method) };
  if (outcome.refusal === "user_temporarily_blocked") {
    // The block's start is in the audit trail already; refusals during it are only counted (no flooding, issue #14).
    counts(db).signIn(method, "blocked");
    return refused(outcome.refusal, true);
  }
  const client = input.source.client;
  await audit(
    db,
    "sign_in_failed",
    {
      userId: outcome.userId ?? null,
      ip: client?.ip ?? null,
      userAgent: client?.userAgent ?? null,
      country: client?.country ?? null,
      method,
      detail: input.detail ? `${input.detail}: ${outcome.refusal}` : outcome.refusal,
    },
    now,
  );
  return refused(outcome.refusal);
}
