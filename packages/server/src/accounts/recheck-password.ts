import type { Db } from "../store/db.ts";
import type { UserRow } from "../store/schema.ts";
import { checkPassword } from "./passwords.ts";
import { type AttemptSource, guardedCheck } from "./throttle.ts";

export type RecheckRefusal = "current_password_incorrect" | "user_temporarily_blocked";

/**
 * "Re-check the current password" (issue #24 §1: one rule, one place) before a sensitive change of a signed-in
 * person (ASVS 6.x re-authentication: the password change, a deletion request): verified like a sign-in, so a wrong
 * one counts toward the same block (ASVS 6.3.1) and a block refuses it unverified. Undefined when it matches.
 */
export async function recheckPassword(
  db: Db,
  user: UserRow & { password_hash: string },
  password: string,
  source: AttemptSource,
  now = Date.now(),
): Promise<RecheckRefusal | undefined> {
  const stored = user.password_hash;
  const check = await guardedCheck(
    db,
    user.email_normalized,
    source,
    () => checkPassword(stored, password),
    user.id,
    now,
  );
  if (check.status === "blocked") return "user_temporarily_blocked";
  if (check.status === "mismatch") return "current_password_incorrect";
  return undefined;
}
