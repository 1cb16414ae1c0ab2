import {
  ACTIVITY_KINDS,
  type ActivityKind,
  BRANDS,
  isSocialPlatform,
  SECURITY_PAGE_SIZE,
  SIGN_IN_METHODS,
  type SignInMethod,
  SOCIAL_PLATFORM_NAMES,
} from "@gatehouse/contract";
import type { Config } from "../config.ts";
import { type DeviceWords, deviceOf } from "../devices.ts";
import { auditStore } from "../store/audit.ts";
import type { Db } from "../store/db.ts";
import type { AuditRow } from "../store/schema.ts";
import { type Position, readCursor, writeCursor } from "./cursor.ts";

/** One entry of the activity list (the contract's ActivityEntry): words only, never an id, address or raw detail. */
export interface ActivityEntry {
  at: number;
  kind: ActivityKind;
  device: DeviceWords;
  country: string | null;
  method: SignInMethod | null;
  provider: string | null;
  factor: "totp" | "passkey" | null;
  app: string | null;
}

/** A cursor the client sent that is not one of ours: the route answers 400 invalid_request. */
export class BadCursor extends Error {}

/** What names the providers and apps an event mentions: the identity providers' and clients' configuration. */
export type ActivityNames = Pick<Config, "idps" | "clients">;

/**
 * Issue #27, "What happened": the person's own security events, newest first, a page at a time. Only the kinds the
 * page lists (ACTIVITY_KINDS); every one of them is recorded under the account's id either by the person or, for
 * `second_factors_reset` and `lockout`, by the service or an administrator acting on the account — never another
 * person's action of their own (the admin command line's own events are `admin` and `unlock`, not listed).
 */
export async function activityPage(
  db: Db,
  names: ActivityNames,
  userId: string,
  cursor: string | undefined,
): Promise<{ events: ActivityEntry[]; nextCursor: string | null }> {
  const after = cursor === undefined ? undefined : readEventCursor(cursor);
  // One row more than a page says whether another page follows, without counting.
  const rows = await auditStore.pageOfUser(db, userId, ACTIVITY_KINDS, after, SECURITY_PAGE_SIZE + 1);
  const page = rows.slice(0, SECURITY_PAGE_SIZE);
  const last = page.at(-1);
  return {
    events: page.map((row) => entryOf(row, names)),
    nextCursor: rows.length > SECURITY_PAGE_SIZE && last ? writeCursor({ at: last.at, id: last.id }) : null,
  };
}

/** An audit event's id (a UUID). */
const EVENT_ID = /[0-9a-f-]{36}/u;

function readEventCursor(cursor: string): Position {
  const position = readCursor(cursor, EVENT_ID);
  if (!position) throw new BadCursor();
  return position;
}

type EventRow = Pick<AuditRow, "at" | "event" | "user_agent" | "detail" | "country">;

/** An event in words: the detail is read for what the page may say, and never returned. */
function entryOf(row: EventRow, names: ActivityNames): ActivityEntry {
  const kind = row.event as ActivityKind;
  const detail = row.detail ?? "";
  const signIn = kind === "sign_in" || kind === "sign_in_failed" ? methodOf(detail) : undefined;
  return {
    at: row.at,
    kind,
    device: deviceOf(row.user_agent),
    country: row.country,
    method: signIn?.method ?? null,
    provider: providerName(names, signIn ? signIn.idp : identityProviderOf(kind, detail)),
    factor: kind === "second_factor_added" || kind === "second_factor_removed" ? factorOf(detail) : null,
    app: kind === "app_granted" || kind === "app_removed" ? appName(names, detail) : null,
  };
}

/** "password", "social (google)", "social: user_disabled"; a bare refusal is the password's (signin/password.ts). */
const METHOD_DETAIL = /^([a-z_]+)(?: \(([a-z0-9_-]+)\))?(?::|$)/u;

function methodOf(detail: string): { method: SignInMethod; idp: string | undefined } {
  const match = METHOD_DETAIL.exec(detail);
  const word = match?.[1] ?? "";
  // A password refused while linking a provider's identity ("link: …") finishes a social sign-in.
  if (word === "link") return { method: "social", idp: undefined };
  if ((SIGN_IN_METHODS as readonly string[]).includes(word)) return { method: word as SignInMethod, idp: match?.[2] };
  return { method: "password", idp: undefined };
}

/** identity_linked / identity_unlinked name the provider: "google", or "google (new account)". */
function identityProviderOf(kind: ActivityKind, detail: string): string | undefined {
  if (kind !== "identity_linked" && kind !== "identity_unlinked") return undefined;
  return /^[a-z0-9][a-z0-9_-]*/u.exec(detail)?.[0];
}

/** The provider's name as configured; a social platform no longer configured keeps its own name; else none. */
function providerName(names: ActivityNames, idp: string | undefined): string | null {
  if (!idp) return null;
  const configured = names.idps.find((provider) => provider.id === idp);
  if (configured) return configured.name;
  return isSocialPlatform(idp) ? SOCIAL_PLATFORM_NAMES[idp] : null;
}

/** "totp", "passkey", "passkey: <its name>" (the name the person gave stays out of the list). */
function factorOf(detail: string): "totp" | "passkey" | null {
  const word = detail.split(":")[0];
  return word === "totp" || word === "passkey" ? word : null;
}

/** The client's name, as the consent screen shows it (its brand's name without one); none for a removed client. */
function appName(names: ActivityNames, clientId: string): string | null {
  const client = names.clients.find((candidate) => candidate.client_id === clientId);
  if (!client) return null;
  return client.client_name ?? BRANDS[client.brand].name;
}
