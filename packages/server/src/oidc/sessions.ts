import type { FastifyBaseLogger } from "fastify";
import type Provider from "oidc-provider";
import type { Db } from "../store/db.ts";
import { oidcStore } from "../store/oidc.ts";

interface StoredAuthorization {
  sid?: string;
  grantId?: string;
  persistsLogout?: boolean;
}

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
 * Ends the provider sessions opened under these gateway sessions (issue #10 §1: the gateway session is the one
 * source of truth). For each: every site with a back-channel logout URI gets its logout token (OIDC Back-Channel
 * Logout 1.0), the grants that do not persist logout are revoked with everything issued under them (as the
 * provider's own end-session does), and the session is gone. Returns how many provider sessions ended. A site
 * that does not answer is logged and does not hold up the others.
 */
export function providerSessionEnder(provider: Provider, db: Db, log: FastifyBaseLogger): EndProviderSessions {
  return async (gatewaySessionIds) => {
    const rows = await oidcStore.sessionsOfGateway(db, gatewaySessionIds);
    await Promise.all(
      rows.map(async (row) => {
        const session = JSON.parse(row.payload) as StoredSession;
        await Promise.all(
          Object.entries(session.authorizations ?? {}).map(([clientId, authorization]) =>
            endAuthorization(provider, db, log, session.accountId, clientId, authorization),
          ),
        );
        await oidcStore.destroy(db, "Session", row.id);
      }),
    );
    return rows.length;
  };
}

async function endAuthorization(
  provider: Provider,
  db: Db,
  log: FastifyBaseLogger,
  accountId: string | undefined,
  clientId: string,
  authorization: StoredAuthorization,
): Promise<void> {
  // The provider's Client signs and posts the logout token; its typings do not declare the method.
  const client = (await provider.Client.find(clientId)) as BackchannelClient | undefined;
  if (client?.backchannelLogoutUri && accountId) {
    try {
      await client.backchannelLogout(accountId, authorization.sid ?? "");
    } catch (err) {
      log.warn({ err, clientId }, "back-channel logout failed");
    }
  }
  if (authorization.grantId && !authorization.persistsLogout) await oidcStore.revokeGrant(db, authorization.grantId);
}
