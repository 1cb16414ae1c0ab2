import type Provider from "oidc-provider";
import { queueJob } from "../jobs/worker.ts";
import type { Db } from "../store/db.ts";
import { oidcStore } from "../store/oidc.ts";
import type { OidcModelRow } from "../store/schema.ts";
import { sessionsStore } from "../store/sessions.ts";

interface StoredAuthorization {
  sid?: string;
  grantId?: string;
  persistsLogout?: boolean;
}

/** What a provider session stores of the clients it signed the person in to (lib/models/session.js of oidc-provider 9). */
interface StoredSession {
  accountId?: string;
  authorizations?: Record<string, StoredAuthorization>;
}

interface BackchannelClient {
  backchannelLogoutUri?: string;
  backchannelLogout(sub: string, sid: string): Promise<void>;
}

/** What ends provider sessions when gateway sessions end (sign-out, password change, disabling, deletion). */
export type EndProviderSessions = (gatewaySessionIds: readonly string[]) => Promise<number>;

/**
 * Issue #27: one site's back-channel logout, a job of its own so that a site that does not answer is asked again
 * (the worker's back-off) rather than forgotten. Its payload is `BackchannelLogout`.
 */
export const BACKCHANNEL_LOGOUT_JOB = "backchannel_logout";

interface BackchannelLogout {
  clientId: string;
  /** The logout token's `sub` and `sid` (OIDC Back-Channel Logout 1.0 §2.4). */
  sub: string;
  sid: string;
}

/**
 * Ends the provider sessions opened under these gateway sessions (issue #10 §1: the gateway session is the one
 * source of truth), the handler of events/sessions-ended.ts's job. A gateway session that still lives is left alone
 * (an account change names all the person's sessions and keeps one). For each provider session, in one transaction:
 * a back-channel logout job for every site that asked for one (OIDC Back-Channel Logout 1.0), the grants that do not
 * persist logout revoked with everything issued under them (as the provider's own end-session does), and the
 * session gone. A rerun after a crash finds only the sessions not yet ended, so nothing is done twice; a second
 * worker running the same job after its lease lapsed could queue a logout twice, which a site takes as one (the
 * session it names is gone either way). Answers how many provider sessions ended; `queued` wakes the worker.
 */
export function providerSessionEnder(provider: Provider, db: Db, queued?: () => void): EndProviderSessions {
  return async (gatewaySessionIds) => {
    const live = await sessionsStore.existing(db, gatewaySessionIds);
    const gone = gatewaySessionIds.filter((id) => !live.has(id));
    const rows = await oidcStore.sessionsOfGateway(db, gone);
    let logouts = 0;
    for (const row of rows) logouts += await endProviderSession(provider, db, row);
    if (logouts > 0) queued?.();
    return rows.length;
  };
}

/** Ends one provider session (see providerSessionEnder); answers how many back-channel logouts it queued. */
async function endProviderSession(provider: Provider, db: Db, row: OidcModelRow): Promise<number> {
  const session = storedSession(row.payload) ?? {};
  const authorizations = Object.entries(session.authorizations ?? {});
  // Read before the transaction: a client lookup may read the database, which on SQLite waits for the transaction.
  const logouts: BackchannelLogout[] = [];
  for (const [clientId, authorization] of authorizations) {
    if (session.accountId && (await backchannelClient(provider, clientId))) {
      logouts.push({ clientId, sub: session.accountId, sid: authorization.sid ?? "" });
    }
  }
  await db.transaction().execute(async (trx) => {
    for (const logout of logouts) await queueJob(trx, BACKCHANNEL_LOGOUT_JOB, logout);
    for (const [, authorization] of authorizations) {
      if (authorization.grantId && !authorization.persistsLogout)
        await oidcStore.revokeGrant(trx, authorization.grantId);
    }
    await oidcStore.destroy(trx, "Session", row.id);
  });
  return logouts.length;
}

/** The client when it asks for back-channel logout; the provider's Client signs and posts the token. */
async function backchannelClient(provider: Provider, clientId: string): Promise<BackchannelClient | undefined> {
  // Its typings do not declare the method.
  const client = (await provider.Client.find(clientId)) as BackchannelClient | undefined;
  return client?.backchannelLogoutUri ? client : undefined;
}

/**
 * Sends one back-channel logout (the handler of BACKCHANNEL_LOGOUT_JOB): a fresh logout token each try, posted to
 * the site's URI. A site that does not answer 200 or 204 throws, so the worker retries it later (Back-Channel Logout
 * 1.0 §2.8 lets the OP retry); a client that no longer asks for it is done.
 */
export function backchannelLogoutSender(provider: Provider): (payload: unknown) => Promise<void> {
  return async (payload) => {
    const { clientId, sub, sid } = payload as BackchannelLogout;
    const client = await backchannelClient(provider, clientId);
    if (client) await client.backchannelLogout(sub, sid);
  };
}

/** A stored provider session, or undefined for a payload that is not JSON (never written by the provider). */
function storedSession(payload: string): StoredSession | undefined {
  try {
    return JSON.parse(payload) as StoredSession;
  } catch {
    return undefined;
  }
}

/**
 * Takes the client out of the person's provider sessions, as the provider's own end-session does for each client:
 * without it the site's `prompt=none` would still find the person signed in to it (issue #27, removing an app's
 * access; run in the removal's transaction). A session left with no client ends. Answers the sessions' `sid`s.
 */
export async function signOutOfClient(db: Db, userId: string, clientId: string): Promise<string[]> {
  const sids: string[] = [];
  for (const row of await oidcStore.sessionsOfAccount(db, userId)) {
    const session = storedSession(row.payload);
    const authorization = session?.authorizations?.[clientId];
    if (session?.accountId !== userId || !authorization || !session.authorizations) continue;
    if (authorization.sid) sids.push(authorization.sid);
    delete session.authorizations[clientId];
    if (Object.keys(session.authorizations).length === 0) await oidcStore.destroy(db, "Session", row.id);
    else await oidcStore.setPayload(db, "Session", row.id, JSON.stringify(session));
  }
  return sids;
}
