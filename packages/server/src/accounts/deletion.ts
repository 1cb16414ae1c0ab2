import { DELETION_TTL_MS, routeUrl } from "@gatehouse/contract";
import { audit } from "../audit/audit.ts";
import { type CodeRefusal, codeRefusal, consumeCode, issueCode } from "../codes/codes.ts";
import { queueMail, queueUserMail } from "../mail/outbox.ts";
import { renderMail } from "../mail/render.ts";
import { auditStore } from "../store/audit.ts";
import type { Db } from "../store/db.ts";
import type { UserRow } from "../store/schema.ts";
import { throttleStore } from "../store/throttle.ts";
import { usersStore } from "../store/users.ts";
import { identifierKey } from "./identifiers.ts";
import { verifyPassword } from "./passwords.ts";
import { clearFailures, recordFailure, throttleState } from "./throttle.ts";

export type DeletionRequestRefusal = "password_required" | "current_password_incorrect" | "user_temporarily_blocked";

/**
 * POST /account/delete/request (our addition, issue #5): the password re-confirms the person (ASVS 6.x
 * re-authentication for sensitive operations); an account without a password confirms by the mail alone. A wrong
 * password counts toward the sign-in block. Mails a single-use link valid one hour.
 */
export async function requestDeletion(
  db: Db,
  user: UserRow,
  password: string | undefined,
  publicUrl: URL,
  now = Date.now(),
): Promise<{ ok: true } | { ok: false; refusal: DeletionRequestRefusal }> {
  if (user.password_hash) {
    if (!password) return { ok: false, refusal: "password_required" };
    if ((await throttleState(db, user.email_normalized, now)).blocked)
      return { ok: false, refusal: "user_temporarily_blocked" };
    if (!(await verifyPassword(user.password_hash, password))) {
      const blocked = await recordFailure(db, user.email_normalized, now);
      return { ok: false, refusal: blocked ? "user_temporarily_blocked" : "current_password_incorrect" };
    }
  }
  await db.transaction().execute(async (trx) => {
    const code = await issueCode(trx, user.id, "deletion", DELETION_TTL_MS, now);
    await queueUserMail(
      trx,
      user,
      "deletion_request",
      new URL(routeUrl("ACCOUNT_DELETE", { code }), publicUrl).href,
      publicUrl,
      now,
    );
  });
  return { ok: true };
}

/**
 * POST /account/delete: uses the code once and erases the user and everything that refers to it — sessions,
 * codes and queued mail go with the row (foreign keys), throttle rows by their keys — and anonymises the user's
 * audit events. What stays is an audit record without personal data, and a farewell mail that the outbox erases
 * once it is delivered (ASVS 6.3.6 asks to tell the user).
 */
export async function deleteAccount(
  db: Db,
  code: string,
  publicUrl: URL,
  now = Date.now(),
): Promise<{ ok: true } | { ok: false; refusal: CodeRefusal }> {
  const used = await consumeCode(db, code, "deletion", now);
  if (!used.ok) return { ok: false, refusal: codeRefusal(used.status) };
  const user = await usersStore.findById(db, used.userId);
  if (!user) return { ok: false, refusal: "code_invalid" };
  const farewell = renderMail({
    kind: "account_deleted",
    language: user.language,
    brand: user.brand,
    publicUrl,
    link: new URL(routeUrl("REGISTER"), publicUrl).href,
    name: user.first_name || user.email,
  });
  await db.transaction().execute(async (trx) => {
    await auditStore.anonymizeUser(trx, user.id);
    await clearFailures(trx, user.email_normalized);
    await throttleStore.clear(trx, identifierKey(`recover:${user.email_normalized}`));
    await usersStore.delete(trx, user.id);
    await audit(trx, "account_deleted", {}, now);
    await queueMail(trx, { userId: null, to: user.email, kind: "account_deleted", ...farewell }, now);
  });
  return { ok: true };
}
