import type { Config } from "../config.ts";
import { sessionCookieName } from "../http/session.ts";
import { findSession, isSessionToken, sessionId } from "../sessions/sessions.ts";
import type { Db } from "../store/db.ts";
import { usersStore } from "../store/users.ts";

/** The gateway session a request carries, as the provider needs it. */
export interface GatewaySession {
  /** The sessions row's id (the token's hash), which provider sessions are bound to. */
  id: string;
  userId: string;
  /** When the person signed in (ms): the provider's auth_time, which max_age and prompt=login are measured by. */
  signedInAt: number;
  /** False while the account owes a step (a required password change or profile update): it may not sign in elsewhere. */
  mayContinue: boolean;
  /** The step it owes, if any: the password change comes first (spec §4). */
  owedStep: "password" | "profile" | undefined;
}

/** The gateway cookie's name for this deployment (`__Host-` over https). */
export function gatewayCookieName(config: Pick<Config, "publicUrl">): string {
  return sessionCookieName(config.publicUrl);
}

/** The id of the gateway session a token names, without reading the database; null for no token. */
export function gatewaySessionIdOf(token: string | undefined): string | null {
  return isSessionToken(token) ? sessionId(token) : null;
}

/**
 * The live gateway session behind a cookie's token, read the way the gateway reads it (idle and absolute
 * lifetime, active account), and whether it may continue to another site. The "core" work of issue #10 §1 adds
 * the gateway's own helper for this ("may this session sign in elsewhere"); this one is swapped for it at merge.
 */
export async function readGatewaySessionForProvider(
  db: Db,
  token: string | undefined,
  now = Date.now(),
): Promise<GatewaySession | undefined> {
  if (!isSessionToken(token)) return undefined;
  const session = await findSession(db, token, now);
  if (!session) return undefined;
  const user = await usersStore.findById(db, session.user_id);
  if (user?.status !== "active") return undefined;
  return {
    id: session.id,
    userId: session.user_id,
    signedInAt: session.created_at,
    // A site must not receive a person who has still to change their password or complete their profile
    // (issue #10 §1): the provider refuses such a session until the step is done.
    mayContinue: user.required_password_update === 0 && user.required_profile_update === 0,
    owedStep: user.required_password_update ? "password" : user.required_profile_update ? "profile" : undefined,
  };
}
