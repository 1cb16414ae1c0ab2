import type { Account, FindAccount } from "oidc-provider";
import { trialClaims } from "../accounts/trials.ts";
import type { Db } from "../store/db.ts";
import type { UserRow } from "../store/schema.ts";
import { usersStore } from "../store/users.ts";

/**
 * Which claims each scope releases (OIDC Core §5.4, the subset an account of ours has). Every ID token says how the
 * person signed in (`amr`, RFC 8176, from the gateway session: oidc/gateway-session.ts) and at which level (`acr`,
 * aal1 or aal2: oidc/assurance.ts).
 */
export const OIDC_CLAIMS = {
  openid: ["sub", "amr", "acr"],
  email: ["email", "email_verified"],
  profile: ["name", "given_name", "family_name", "locale"],
  /** Issue #12: the trials the person started, so a product site learns of its own from the token. */
  trials: ["trials"],
} as const;

/** Only an active account is anyone's subject: a disabled or pending one has no claims and no userinfo. */
export function accountFinder(db: Db): FindAccount {
  return async (_ctx, sub) => {
    const user = await usersStore.findById(db, sub);
    if (user?.status !== "active") return undefined;
    return accountOf(db, user);
  };
}

function accountOf(db: Db, user: UserRow): Account {
  return {
    accountId: user.id,
    claims: async (_use, scope) => ({
      sub: user.id,
      email: user.email,
      // Issue #13: proven by a mailed link or vouched for by a provider; an admin-made or a company's
      // just-in-time account may be active without it.
      email_verified: user.email_verified === 1,
      name: `${user.first_name} ${user.last_name}`.trim() || undefined,
      given_name: user.first_name || undefined,
      family_name: user.last_name || undefined,
      locale: user.language,
      // Read only when the grant holds the scope: most tokens never ask for it.
      ...(scope.split(" ").includes("trials") ? { trials: await trialClaims(db, user.id) } : {}),
    }),
  };
}
