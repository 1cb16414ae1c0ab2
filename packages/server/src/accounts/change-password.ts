import { type PasswordPolicyCode, type RequiredStep, routeUrl } from "@gatehouse/contract";
import type { MailSite } from "../mail/links.ts";
import { queueUserMail } from "../mail/outbox.ts";
import { announceEnded } from "../sessions/ended.ts";
import { sessionId } from "../sessions/sessions.ts";
import type { Db } from "../store/db.ts";
import { sessionsStore } from "../store/sessions.ts";
import { usersStore } from "../store/users.ts";
import { loseAccess } from "./access-lost.ts";
import { requiredStepOf } from "./account-status.ts";
import { accountContext } from "./password-context.ts";
import { passwordRefusal } from "./password-policy.ts";
import { checkPassword, hashPassword } from "./passwords.ts";
import { type AttemptSource, clearFailures, guardedCheck } from "./throttle.ts";

export type ChangeRefusal =
  | "password_not_allowed"
  | "current_password_incorrect"
  | "user_temporarily_blocked"
  | PasswordPolicyCode;

/**
 * POST /account/change_password for the signed-in user: the current password is verified like a sign-in (a wrong
 * one counts toward the same block, ASVS 6.3.1), the new one is set, RequiredPasswordUpdate is cleared, the
 * user's other sessions end (ASVS 7.4.3) and a notice is mailed (ASVS 6.3.6).
 */
export async function changePassword(
  db: Db,
  input: {
    userId: string;
    sessionToken: string;
    oldPassword: string;
    password: string;
    site: MailSite;
    /** The browser's device cookie and address; without it the attempt spends the account's shared allowance. */
    source?: AttemptSource;
  },
  now = Date.now(),
): Promise<{ ok: true; next: RequiredStep | null } | { ok: false; refusal: ChangeRefusal }> {
  const user = await usersStore.findById(db, input.userId);
  if (!user?.password_hash || user.password_allowed !== 1) return { ok: false, refusal: "password_not_allowed" };
  const stored = user.password_hash;
  const check = await guardedCheck(
    db,
    user.email_normalized,
    input.source ?? {},
    () => checkPassword(stored, input.oldPassword),
    user.id,
    now,
  );
  if (check.status === "blocked") return { ok: false, refusal: "user_temporarily_blocked" };
  if (check.status === "mismatch") return { ok: false, refusal: "current_password_incorrect" };
  const refusal = passwordRefusal(input.password, accountContext(user));
  if (refusal) return { ok: false, refusal };
  const passwordHash = await hashPassword(input.password);
  // Also the forum's sign-out (accounts/access-lost.ts), in the same transaction: a victim changing the password
  // evicts whoever signed in to the forum with the old one; this session stays here, and signs in there again.
  const ended = await loseAccess(db, { userId: user.id, kind: "password_changed", now }, async (trx) => {
    await usersStore.update(trx, user.id, {
      password_hash: passwordHash,
      required_password_update: 0,
      updated_at: now,
    });
    await queueUserMail(trx, user, "password_changed", routeUrl("LOGIN"), input.site, now);
    return sessionsStore.deleteOthersForUser(trx, user.id, sessionId(input.sessionToken));
  });
  await announceEnded(db, ended, "password_changed");
  await clearFailures(db, user.email_normalized);
  // The password step is done; the profile may still be owed (spec §4 order).
  return { ok: true, next: requiredStepOf({ ...user, required_password_update: 0 }) };
}
