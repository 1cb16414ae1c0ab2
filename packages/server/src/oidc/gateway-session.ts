import type { Config } from "../config.ts";
import { sessionCookieName } from "../http/session.ts";
import { findSession, isSessionToken, sessionId } from "../sessions/sessions.ts";
import { METHOD_AMR } from "../signin/proofs.ts";
import type { Db } from "../store/db.ts";

/** The gateway session a request carries, as the provider needs it. */
export interface GatewaySession {
  /** The sessions row's id (the token's hash), which provider sessions are bound to. */
  id: string;
  userId: string;
  /** When the person signed in (ms): the provider's auth_time, which max_age and prompt=login are measured by. */
  signedInAt: number;
  /** How they signed in: the ID token's `amr` (RFC 8176) says it to the site. */
  amr: string[];
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
 * lifetime, active account). Every session is a finished sign-in (issue #24: what is owed is a sign-in attempt,
 * never a session), so any live one may sign the person in to a site.
 */
export async function readGatewaySessionForProvider(
  db: Db,
  token: string | undefined,
  now = Date.now(),
): Promise<GatewaySession | undefined> {
  if (!isSessionToken(token)) return undefined;
  const session = await findSession(db, token, now);
  if (!session) return undefined;
  return {
    id: session.id,
    userId: session.user_id,
    signedInAt: session.auth_time,
    // Sessions opened before issue #24 recorded the method only.
    amr: session.amr ? session.amr.split(" ") : [...METHOD_AMR[session.auth_method]],
  };
}
