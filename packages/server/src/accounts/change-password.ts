import { type PasswordPolicyCode, routeUrl } from "@gatehouse/contract";
import { queueUserMail } from "../mail/outbox.ts";
import { sessionId } from "../sessions/sessions.ts";
import type { Db } from "../store/db.ts";
import { sessionsStore } from "../store/sessions.ts";
import { usersStore } from "../store/users.ts";
import { accountContext } from "./password-context.ts";
import { passwordRefusal } from "./password-policy.ts";
import { hashPassword, verifyPassword } from "./passwords.ts";
import { clearFailures, recordFailure, throttleState } from "./throttle.ts";

export type ChangeRefusal =
  | "password_not_allowed"
  | "current_password_incorrect"
  | "user_temporarily_blocked"
  | PasswordPolicyCode;

/**
 * POST /account/change_password for the signed-in user: the current password is verified like a sign-in (a wrong
 * one counts toward the same block, ASVS 6.3.5), the new one is set, RequiredPasswordUpdate is cleared, the
 * user's other sessions end (ASVS 7.4.3) and a notice is mailed (ASVS 6.3.6).
 */
export async function changePassword(
  db: Db,
  input: { userId: string; sessionToken: string; oldPassword: string; password: string; publicUrl: URL },
  now = Date.now(),
): Promise<{ ok: true } | { ok: false; refusal: ChangeRefusal }> {
  const user = await usersStore.findById(db, input.userId);
  if (!user?.password_hash || user.password_allowed !== 1) return { ok: false, refusal: "password_not_allowed" };
  if ((await throttleState(db, user.email_normalized, now)).blocked)
    return { ok: false, refusal: "user_temporarily_blocked" };
  if (!(await verifyPassword(user.password_hash, input.oldPassword))) {
    const blocked = await recordFailure(db, user.email_normalized, now);
    return { ok: false, refusal: blocked ? "user_temporarily_blocked" : "current_password_incorrect" };
  }
  const refusal = passwordRefusal(input.password, accountContext(user));
  if (refusal) return { ok: false, refusal };
  const passwordHash = await hashPassword(input.password);
  await db.transaction().execute(async (trx) => {
    await usersStore.update(trx, user.id, {
      password_hash: passwordHash,
      required_password_update: 0,
      updated_at: now,
    });
    await sessionsStore.deleteOthersForUser(trx, user.id, sessionId(input.sessionToken));
    await queueUserMail(
      trx,
      user,
      "password_changed",
      new URL(routeUrl("LOGIN"), input.publicUrl).href,
      input.publicUrl,
      now,
    );
  });
  await clearFailures(db, user.email_normalized);
  return { ok: true };
}
