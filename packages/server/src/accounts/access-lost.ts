import type { Db } from "../store/db.ts";
import { oidcStore } from "../store/oidc.ts";
import { secondFactorsStore } from "../store/second-factors.ts";

/**
 * Account changes after which whoever held the account before must be shut out everywhere, whether or not a
 * gateway session happened to be live (issue #13 review): disabling, deletion, a password reset or set-up, and a
 * password change (the session that made the change stays here, but nowhere else is trusted to know which one it is).
 */
export type AccessLoss = "disabled" | "deleted" | "password_reset" | "password_changed";

export interface AccessLossHook {
  /** Writes what must follow the change, in the change's own transaction: a crash keeps both or neither. */
  record(trx: Db, userId: string, loss: AccessLoss, now: number): Promise<void>;
  /** Called once the change is committed (e.g. to wake the worker that acts on the record). */
  committed?(userId: string, loss: AccessLoss): void;
}

/** Hooks by database, as the session-end listeners are (events/sessions-ended.ts): whatever changes an account finds them. */
const hooks = new WeakMap<Db, Set<AccessLossHook>>();

/** Registers a hook on every account change of `AccessLoss` made on this database object; answers its removal. */
export function onAccessLost(db: Db, hook: AccessLossHook): () => void {
  let set = hooks.get(db);
  if (!set) {
    set = new Set();
    hooks.set(db, set);
  }
  set.add(hook);
  return () => set.delete(hook);
}

/**
 * Makes an account change that loses access: `change` and every hook's record run in one transaction, then the
 * hooks hear that it was committed. `db` must be the database itself (not a transaction): the hooks are found by it.
 */
export async function loseAccess<T>(
  db: Db,
  loss: { userId: string; kind: AccessLoss; now: number },
  change: (trx: Db) => Promise<T>,
): Promise<T> {
  const set = [...(hooks.get(db) ?? [])];
  const result = await db.transaction().execute(async (trx) => {
    // Issue #26: no browser stays remembered past the credential it was remembered under (a password change or
    // reset, a disabled or deleted account): the next sign-in anywhere asks for the second factor again.
    await secondFactorsStore.forgetBrowsers(trx, loss.userId);
    // Issue #27: the apps that stay signed in without a session lose their access too (docs/decisions.md "What a
    // password change ends"; ASVS 7.4.3). Here rather than in a hook registered by the gateway, so that the admin
    // command line's disabling and deletion, on their own database object, revoke them as well.
    await revokeOfflineGrants(trx, loss.userId, loss.now);
    for (const hook of set) await hook.record(trx, loss.userId, loss.kind, loss.now);
    return change(trx);
  });
  for (const hook of set) hook.committed?.(loss.userId, loss.kind);
  return result;
}

/** The scope of a grant whose refresh tokens outlive sign-out (OIDC Core §11): what the provider issues them for. */
const OFFLINE_SCOPE = "offline_access";

/** Whether a stored grant (the provider's Grant payload) holds `offline_access`. */
export function isOfflineGrant(payload: string): boolean {
  try {
    const scope = (JSON.parse(payload) as { openid?: { scope?: unknown } }).openid?.scope;
    return typeof scope === "string" && scope.split(" ").includes(OFFLINE_SCOPE);
  } catch {
    return false;
  }
}

/**
 * Issue #27: revokes the account's offline grants (`offline_access`: a desktop app, a site acting while the person
 * is away) with every token issued under them. Nothing else keeps them from living their 30 days: the grants of a
 * session end with it (oidc/sessions.ts), so a password change, which keeps the browser that made it, keeps that
 * browser's sites too. Call it in the change's transaction. Answers how many were revoked.
 */
export async function revokeOfflineGrants(db: Db, userId: string, now: number): Promise<number> {
  const offline = (await oidcStore.grantsOf(db, userId, now)).filter((grant) => isOfflineGrant(grant.payload));
  await oidcStore.revokeGrants(
    db,
    offline.map((grant) => grant.id),
  );
  return offline.length;
}
