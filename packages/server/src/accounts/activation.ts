import { type CodeRefusal, codeRefusal, consumeCode, decoyCodeWork } from "../codes/codes.ts";
import type { Db } from "../store/db.ts";
import type { UserRow } from "../store/schema.ts";
import { usersStore } from "../store/users.ts";
import { normalizeEmail } from "./identifiers.ts";
import { type Origin, sendActivation } from "./registration.ts";

export type ActivationOutcome = { ok: true; user: UserRow } | { ok: false; refusal: CodeRefusal };

/** Uses an activation code once and makes a pending account active. A disabled account stays disabled. */
export async function activateAccount(db: Db, code: string, now = Date.now()): Promise<ActivationOutcome> {
  const used = await consumeCode(db, code, "activation", now);
  if (!used.ok) return { ok: false, refusal: codeRefusal(used.status) };
  const user = await usersStore.findById(db, used.userId);
  if (!user) return { ok: false, refusal: "code_invalid" };
  if (user.status === "pending") {
    await usersStore.update(db, user.id, { status: "active", updated_at: now });
    return { ok: true, user: { ...user, status: "active" } };
  }
  return { ok: true, user };
}

/**
 * Sends a new activation link when the address has a pending account, and does nothing otherwise; the caller
 * answers the same either way, and a decoy of the same work keeps the time the same too, so the call tells
 * nobody which addresses have accounts.
 */
export async function resendActivation(db: Db, email: string, origin: Origin, now = Date.now()): Promise<boolean> {
  const user = await usersStore.findByEmail(db, normalizeEmail(email));
  if (user?.status !== "pending") {
    await decoyCodeWork(db, now);
    return false;
  }
  // The mail keeps the account's language; its look and link are those of the brand the visitor asked on.
  await db.transaction().execute((trx) => sendActivation(trx, user, origin, now));
  return true;
}
