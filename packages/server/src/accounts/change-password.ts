import { type PasswordPolicyCode, routeUrl } from "@gatehouse/contract";
import { announceEnded } from "../events/sessions-ended.ts";
import type { MailSite } from "../mail/links.ts";
import { queueUserMail } from "../mail/outbox.ts";
import type { Db } from "../store/db.ts";
import type { UserRow } from "../store/schema.ts";
import { sessionsStore } from "../store/sessions.ts";
import { usersStore } from "../store/users.ts";
import { loseAccess } from "./access-lost.ts";
import { accountContext } from "./password-context.ts";
import { passwordRefusal } from "./password-policy.ts";
import { hashPassword } from "./passwords.ts";
import { type RecheckRefusal, recheckPassword } from "./recheck-password.ts";
import { type AttemptSource, clearFailures } from "./throttle.ts";

export type ChangeRefusal = "password_not_allowed" | RecheckRefusal | PasswordPolicyCode;

/**
 * POST /account/change_password, for the signed-in person or as the password step a sign-in attempt owes: the
 * current password is re-checked (accounts/recheck-password.ts), the new one is set, RequiredPasswordUpdate is
 * cleared, every session of the account but `keepSessionId` (the one making the change, when signed in) ends
 * (ASVS 7.4.3) and a notice is mailed (ASVS 6.3.6). Answers the account as it is now.
 */
export async function changePassword(
  db: Db,
  input: {
    userId: string;
    /** The stored id of the session making the change; none when it is a sign-in attempt's step. */
    keepSessionId?: string;
    oldPassword: string;
    password: string;
    site: MailSite;
    /** The browser's device cookie and address; without it the attempt spends the account's shared allowance. */
    source?: AttemptSource;
  },
  now = Date.now(),
): Promise<{ ok: true; user: UserRow } | { ok: false; refusal: ChangeRefusal }> {
  const user = await usersStore.findById(db, input.userId);
  if (!user?.password_hash || user.password_allowed !== 1) return { ok: false, refusal: "password_not_allowed" };
  const current = { ...user, password_hash: user.password_hash };
  const wrong = await recheckPassword(db, current, input.oldPassword, input.source ?? {}, now);
  if (wrong) return { ok: false, refusal: wrong };
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
    return input.keepSessionId
      ? sessionsStore.deleteOthersForUser(trx, user.id, input.keepSessionId)
      : sessionsStore.deleteForUser(trx, user.id);
  });
  await announceEnded(db, ended, "password_changed");
  await clearFailures(db, user.email_normalized);
  return { ok: true, user: { ...user, password_hash: passwordHash, required_password_update: 0 } };
}
