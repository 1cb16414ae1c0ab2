import type { Db } from "../store/db.ts";
import type { UserRow } from "../store/schema.ts";
import { usersStore } from "../store/users.ts";
import { accountRefusal } from "./account-status.ts";
import { accountAddress } from "./identifiers.ts";
import { checkPassword, dummyHash, hashPassword, type PasswordCheck } from "./passwords.ts";
import { type AttemptSource, guardedCheck } from "./throttle.ts";

export type SignInRefusal = "invalid_authentication" | "user_not_active" | "user_disabled" | "user_temporarily_blocked";
/** A refusal names the account when there is one, for the audit trail only; the answer never says. */
export type SignInOutcome = { ok: true; user: UserRow } | { ok: false; refusal: SignInRefusal; userId?: string };

const refuse = (refusal: SignInRefusal, user?: UserRow): SignInOutcome => ({
  ok: false,
  refusal,
  ...(user ? { userId: user.id } : {}),
});

/**
 * Password sign-in as a visible pipeline (STYLE.md §5): address → find → throttled verify → status → upgrade.
 * Status is told only after the right password, so a stranger learns nothing about an account's state,
 * and an unknown address costs the same argon2 work as a known one.
 */
export async function signInWithPassword(
  db: Db,
  email: string,
  password: string,
  now = Date.now(),
  source: AttemptSource = {},
): Promise<SignInOutcome> {
  // An identifier that cannot be an account's address names no account: refused before it counts anywhere.
  const address = accountAddress(email);
  if (!address) return refuse("invalid_authentication");

  const user = await usersStore.findByEmail(db, address);
  const check = await guardedCheck(db, address, source, () => passwordCheck(user, password), user?.id ?? null, now);
  // Refused without a word about the account; the block's start is audited where it is counted.
  if (check.status === "blocked") return refuse("user_temporarily_blocked");
  if (check.status === "mismatch") return refuse("invalid_authentication", user);
  // Only a found user's password can match.
  const account = user as UserRow;

  const refusal = accountRefusal(account);
  if (refusal) return refuse(refusal, account);

  if (check.rehash) await upgradeHash(db, account, password);
  return { ok: true, user: account };
}

/** Verifies against the account's hash, or a dummy one when there is none, so both cost the same. */
async function passwordCheck(user: UserRow | undefined, password: string): Promise<PasswordCheck> {
  const check = await checkPassword(user?.password_hash ?? (await dummyHash()), password);
  const usable = user?.password_hash != null && user.password_allowed === 1;
  return usable ? check : { matches: false };
}

/** ARCHITECTURE.md: rehash on sign-in when the argon2 parameters changed, or the hash predates normalisation. */
async function upgradeHash(db: Db, user: UserRow, password: string): Promise<void> {
  await usersStore.update(db, user.id, { password_hash: await hashPassword(password), updated_at: Date.now() });
}
