import type { Db } from "../store/db.ts";
import { externalIdentitiesStore } from "../store/external-identities.ts";
import type { UserRow } from "../store/schema.ts";
import { usersStore } from "../store/users.ts";

/**
 * "The mailbox is proven" (issue #24 §1: one rule, one place): a mailed code (activation, reset, set-up) reached the
 * person. The address is verified (issue #13), a pending account becomes active (a disabled one stays disabled),
 * and identities linked while the address was unproven go (pre-account takeover, ASVS 6.8.x: anyone can give a
 * provider someone else's address), unless the caller knows they were linked by this very person
 * (`keepIdentities`: the activation comes from the browser that registered with the provider). Run it inside the
 * transaction that spends the code. Answers the account as it is now.
 */
export async function proveMailbox(
  trx: Db,
  user: UserRow,
  options: { keepIdentities?: boolean; now: number },
): Promise<UserRow> {
  const status = user.status === "pending" ? "active" : user.status;
  await usersStore.update(trx, user.id, { status, email_verified: 1, updated_at: options.now });
  if (user.status === "pending" && !options.keepIdentities)
    await externalIdentitiesStore.deleteAllForUser(trx, user.id);
  return { ...user, status, email_verified: 1 };
}
