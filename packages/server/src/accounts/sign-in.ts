import type { Db } from "../store/db.ts";
import type { UserRow } from "../store/schema.ts";
import { usersStore } from "../store/users.ts";
import { normalizeEmail } from "./identifiers.ts";
import { dummyHash, hashPassword, needsRehash, verifyPassword } from "./passwords.ts";
import { clearFailures, recordFailure, throttleState } from "./throttle.ts";

export type SignInRefusal = "invalid_authentication" | "user_not_active" | "user_disabled" | "user_temporarily_blocked";
/** A refusal names the account when there is one, for the audit trail only; the answer never says. */
export type SignInOutcome = { ok: true; user: UserRow } | { ok: false; refusal: SignInRefusal; userId?: string };

const refuse = (refusal: SignInRefusal, user?: UserRow): SignInOutcome => ({
  ok: false,
  refusal,
  ...(user ? { userId: user.id } : {}),
});

/**
 * Password sign-in as a visible pipeline (STYLE.md §5): throttle → find → verify → status → upgrade.
 * Status is told only after the right password, so a stranger learns nothing about an account's state,
 * and an unknown address costs the same argon2 work as a known one.
 */
export async function signInWithPassword(
  db: Db,
  email: string,
  password: string,
  now = Date.now(),
): Promise<SignInOutcome> {
  const identifier = normalizeEmail(email);
  const throttle = await throttleState(db, identifier, now);
  if (throttle.blocked) return refuse("user_temporarily_blocked");

  const user = await usersStore.findByEmail(db, identifier);
  if (!(await passwordMatches(user, password))) {
    const blocked = await recordFailure(db, identifier, now);
    return refuse(blocked ? "user_temporarily_blocked" : "invalid_authentication", user);
  }
  // passwordMatches is only true for a found user.
  const account = user as UserRow;
  if (throttle.failures > 0) await clearFailures(db, identifier);

  const refusal = statusRefusal(account);
  if (refusal) return refuse(refusal, account);

  await upgradeHash(db, account, password);
  return { ok: true, user: account };
}

async function passwordMatches(user: UserRow | undefined, password: string): Promise<boolean> {
  const stored = user?.password_hash ?? (await dummyHash());
  const matches = await verifyPassword(stored, password);
  return matches && user?.password_hash != null && user.password_allowed === 1;
}

function statusRefusal(user: UserRow): SignInRefusal | undefined {
  if (user.status === "pending") return "user_not_active";
  if (user.status === "disabled") return "user_disabled";
  return undefined;
}

/** ARCHITECTURE.md: rehash on sign-in when the argon2 parameters changed. */
async function upgradeHash(db: Db, user: UserRow, password: string): Promise<void> {
  if (!user.password_hash || !needsRehash(user.password_hash)) return;
  await usersStore.update(db, user.id, { password_hash: await hashPassword(password), updated_at: Date.now() });
}
