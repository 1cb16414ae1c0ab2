import {
  BRANDS,
  CONSENT_SCOPES,
  OIDC_API_RESOURCE,
  OIDC_API_SCOPE,
  SECURITY_PAGE_SIZE,
  WEB_CLIENT_ID,
} from "@gatehouse/contract";
import { type AuditContext, audit } from "../audit/audit.ts";
import { queueJob } from "../jobs/worker.ts";
import { BACKCHANNEL_LOGOUT_JOB, signOutOfClient } from "../oidc/sessions.ts";
import type { ProviderClient } from "../settings/clients.ts";
import type { Db } from "../store/db.ts";
import { oidcStore } from "../store/oidc.ts";
import { readCursor, writeCursor } from "./cursor.ts";

/**
 * Issue #27, "Apps with access": the sites and apps the person has granted (the provider's grants), and removing
 * one's access. The provider makes a grant per client and provider session (its `loadExistingGrant` finds the
 * grant of the browser's own session), so one client may hold several grants of the person (an offline grant
 * outlives its session): the page shows one entry per client, and removing it removes all of them.
 */

const SECOND_MS = 1000;

/** What the provider stores of a grant (its Grant model's payload; lib/models/grant.js of oidc-provider 9). */
interface StoredGrant {
  clientId?: string;
  iat?: number;
  openid?: { scope?: string };
  resources?: Record<string, string | undefined>;
  rejected?: { openid?: { scope?: string } };
}

export interface AppEntry {
  id: string;
  name: string;
  brand: string | null;
  scopes: string[];
  grantedAt: number;
  lastUsedAt: number | null;
  offline: boolean;
}

interface Grant {
  id: string;
  clientId: string;
  grantedAt: number;
  scopes: Set<string>;
}

/** A stored payload, or undefined for one that is not JSON (never written by the provider: skipped, not a 500). */
function parsed<T>(payload: string): T | undefined {
  try {
    return JSON.parse(payload) as T;
  } catch {
    return undefined;
  }
}

function grantOf(row: { id: string; payload: string }): Grant | undefined {
  const stored = parsed<StoredGrant>(row.payload);
  if (typeof stored?.clientId !== "string") return undefined;
  const rejected = new Set(words(stored.rejected?.openid?.scope));
  const scopes = new Set(words(stored.openid?.scope).filter((scope) => !rejected.has(scope)));
  // The brands' API is a resource's scope, not an OpenID one (oidc/provider.ts), but the person granted it all the same.
  if (words(stored.resources?.[OIDC_API_RESOURCE]).includes(OIDC_API_SCOPE)) scopes.add(OIDC_API_SCOPE);
  return { id: row.id, clientId: stored.clientId, grantedAt: (stored.iat ?? 0) * SECOND_MS, scopes };
}

const words = (value: string | undefined) => (value ? value.split(" ").filter(Boolean) : []);

/** Newest first: by when granted, then by id, so the order (and a cursor into it) is total. */
const newestFirst = (a: { grantedAt: number; id: string }, b: { grantedAt: number; id: string }) =>
  b.grantedAt - a.grantedAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/**
 * A client the page lists: one of CLIENTS_FILE. Not the web app's own client (the legacy flow's, which is this
 * service itself, bound to its sessions), nor a client removed from the file since (the provider accepts none of its
 * tokens any more); an account change still revokes their offline grants with every other.
 */
function listedClient(clients: readonly ProviderClient[], clientId: string): ProviderClient | undefined {
  if (clientId === WEB_CLIENT_ID) return undefined;
  return clients.find((client) => client.client_id === clientId);
}

/** The person's live grants of listed clients, by client. */
async function grantsByClient(db: Db, clients: readonly ProviderClient[], userId: string, now: number) {
  const byClient = new Map<string, Grant[]>();
  for (const row of await oidcStore.grantsOf(db, userId, now)) {
    const grant = grantOf(row);
    if (!grant || !listedClient(clients, grant.clientId)) continue;
    byClient.set(grant.clientId, [...(byClient.get(grant.clientId) ?? []), grant]);
  }
  return byClient;
}

/**
 * One client's entry: its newest grant's id and time (when the person last granted it), and what all its grants
 * allow together (removing the entry removes them all): the scopes, offline access, the last token issued.
 */
function entryOf(client: ProviderClient, grants: Grant[], lastIssued: ReadonlyMap<string, number>): AppEntry {
  const [newest] = [...grants].sort(newestFirst) as [Grant, ...Grant[]];
  const held = new Set(grants.flatMap((grant) => [...grant.scopes]));
  const used = grants.flatMap((grant) => lastIssued.get(grant.id) ?? []);
  return {
    id: newest.id,
    // As the consent screen names it (oidc/interaction.ts describeInteraction).
    name: client.client_name ?? BRANDS[client.brand].name,
    brand: client.brand,
    scopes: CONSENT_SCOPES.filter((scope) => held.has(scope)),
    grantedAt: newest.grantedAt,
    lastUsedAt: used.length > 0 ? Math.max(...used) : null,
    offline: held.has("offline_access"),
  };
}

/** The cursor of a page: the last entry's time and id (security/cursor.ts). */
const cursorOf = (entry: { grantedAt: number; id: string }) => writeCursor({ at: entry.grantedAt, id: entry.id });

/** An app entry's id: its client id, as the clients file spells it. */
const CLIENT_ID = /.+/su;

/**
 * GET /account/apps: one page of the person's apps, newest grant first. The person has a few dozen grants at most
 * (oidc_models_account_id), grouped here; their last use is one grouped query (oidc_models_grant_id).
 */
export async function appsOf(
  db: Db,
  clients: readonly ProviderClient[],
  userId: string,
  cursor: string | undefined,
  now = Date.now(),
): Promise<{ apps: AppEntry[]; nextCursor: string | null } | "invalid_cursor"> {
  const position = cursor === undefined ? undefined : readCursor(cursor, CLIENT_ID);
  const after = position && { grantedAt: position.at, id: position.id };
  if (cursor !== undefined && !after) return "invalid_cursor";
  const byClient = await grantsByClient(db, clients, userId, now);
  const lastIssued = await oidcStore.lastIssuedUnder(
    db,
    [...byClient.values()].flat().map((grant) => grant.id),
  );
  const entries = [...byClient]
    .flatMap(([clientId, grants]) => {
      const client = listedClient(clients, clientId);
      return client ? [entryOf(client, grants, lastIssued)] : [];
    })
    .sort(newestFirst)
    .filter((entry) => !after || newestFirst(after, entry) < 0);
  const apps = entries.slice(0, SECURITY_PAGE_SIZE);
  const last = apps.at(-1);
  return { apps, nextCursor: entries.length > SECURITY_PAGE_SIZE && last ? cursorOf(last) : null };
}

/** What removing an app ended, for the back-channel logouts sent once it is committed. */
export interface AppRemoved {
  clientId: string;
  /** The `sid` of each provider session the client was signed in to (OIDC Back-Channel Logout 1.0 §2.4). */
  sids: string[];
}

/**
 * DELETE /account/apps/{id}: the grant must be the person's (one query with both conditions: another person's id is
 * not found, as an unknown one). Revokes every grant of that client for the person with everything issued under
 * them (codes, access and refresh tokens, offline ones included), takes the client out of the person's provider
 * sessions (a session left with none ends), and records `app_removed`, all in one transaction. Undefined: not found.
 */
export async function removeApp(
  db: Db,
  clients: readonly ProviderClient[],
  userId: string,
  grantId: string,
  who: AuditContext,
  now = Date.now(),
): Promise<AppRemoved | undefined> {
  return db.transaction().execute(async (trx) => {
    const row = await oidcStore.grantOf(trx, userId, grantId, now);
    const grant = row && grantOf(row);
    if (!grant || !listedClient(clients, grant.clientId)) return undefined;
    const { clientId } = grant;
    const grants = (await grantsByClient(trx, clients, userId, now)).get(clientId) ?? [];
    await oidcStore.revokeGrants(
      trx,
      grants.map((each) => each.id),
    );
    const sids = await signOutOfClient(trx, userId, clientId);
    // The site's back-channel logout of each provider session it was signed in to (OIDC Back-Channel Logout 1.0),
    // a job written with the removal: a site that does not answer is asked again, never forgotten.
    const client = listedClient(clients, clientId);
    if (client?.backchannel_logout_uri) {
      for (const sid of sids) await queueJob(trx, BACKCHANNEL_LOGOUT_JOB, { clientId, sub: userId, sid }, now);
    }
    await audit(trx, "app_removed", { ...who, userId, detail: clientId }, now);
    return { clientId, sids };
  });
}
