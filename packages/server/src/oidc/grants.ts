import type { Db } from "../store/db.ts";
import { oidcStore } from "../store/oidc.ts";

/**
 * Issue #27: revokes every grant of the account with every token issued under them, offline refresh tokens
 * included: what a password change or reset, a removed second factor, disabling the account and "Sign out
 * everywhere else" end (docs/decisions.md "What a password change ends"). The sites must ask the person again.
 * Call it inside the change's transaction where there is one, so the change and the revocation land together.
 */
export async function revokeAccountGrants(db: Db, userId: string): Promise<number> {
  const grantIds = await oidcStore.grantIdsOf(db, userId);
  await oidcStore.revokeGrants(db, grantIds);
  return grantIds.length;
}
