import { codeHash } from "../codes/codes.ts";
import { codesStore } from "../store/codes.ts";
import type { Db } from "../store/db.ts";
import type { UserRow } from "../store/schema.ts";
import { usersStore } from "../store/users.ts";
import type { PasswordContext } from "./password-policy.ts";

/** What the password policy knows of an account: its address and names (ASVS 6.2.11 context words). */
export function accountContext(user: UserRow): PasswordContext {
  return { email: user.email, firstName: user.first_name, lastName: user.last_name };
}

/** The context of the account a mailed code belongs to, without using the code; none for an unknown code. */
export async function codeOwnerContext(db: Db, code: string): Promise<PasswordContext> {
  const row = await codesStore.findByHash(db, codeHash(code));
  const user = row ? await usersStore.findById(db, row.user_id) : undefined;
  return user ? accountContext(user) : {};
}
