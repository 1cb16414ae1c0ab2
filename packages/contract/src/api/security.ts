import { z } from "zod/mini";
import { ACTIVITY_KINDS } from "../security.ts";
import { SIGN_IN_METHODS } from "../sign-in.ts";
import { defineEndpoint } from "./endpoint.ts";
import { Empty } from "./schemas.ts";

/**
 * Issue #27, the person's security page. Lists are paged newest first with an opaque cursor: the answer's
 * `nextCursor`, passed back as `cursor` for the next page (null on the last page).
 */
const cursor = z.optional(z.string().check(z.minLength(1), z.maxLength(256)));
export const SecurityListQuery = z.object({ cursor });

/** Which sign-in an entry is: an opaque handle of the sign-in (its linked sessions on other hosts are one entry). */
const entryId = z.string().check(z.minLength(1), z.maxLength(128));
export const SecurityEntryParams = z.object({ id: entryId });

/** The device a session or an event came from, parsed from its user agent on the server; null when unknown. */
export const Device = z.object({ browser: z.nullable(z.string()), os: z.nullable(z.string()) });

/** One sign-in: a gateway session and the sessions linked to it on other brand hosts. */
export const SessionEntry = z.object({
  id: z.string(),
  device: Device,
  /** ISO 3166-1 alpha-2 code of where the sign-in came from (the trusted country header); null when unknown. */
  country: z.nullable(z.string()),
  startedAt: z.number(),
  lastActiveAt: z.number(),
  /** How it was made; `provider` names the identity provider of a social or corporate sign-in. */
  method: z.enum(SIGN_IN_METHODS),
  provider: z.nullable(z.string()),
  /** The host names its sessions are on (the brand sites the person reached signed-in). */
  hosts: z.array(z.string()),
  /** The browser asking: ending it is signing out. */
  current: z.boolean(),
});
export const SessionsAnswer = z.object({ sessions: z.array(SessionEntry), nextCursor: z.nullable(z.string()) });
/** "Sign out everywhere else": how many sign-ins ended. */
export const SessionsEndedAnswer = z.object({ ended: z.number() });

/** One site or app the person has granted access to (a grant of the OpenID provider). */
export const AppEntry = z.object({
  id: z.string(),
  name: z.string(),
  /** The brand the client belongs to (BRANDS), null for a client of no brand. */
  brand: z.nullable(z.string()),
  /** The scopes granted (OpenID Connect scope values); the page says them in words. */
  scopes: z.array(z.string()),
  grantedAt: z.number(),
  lastUsedAt: z.nullable(z.number()),
  /** It may act while the person is away (`offline_access`: a refresh token that outlives sign-out). */
  offline: z.boolean(),
});
export const AppsAnswer = z.object({ apps: z.array(AppEntry), nextCursor: z.nullable(z.string()) });

/** One event of the person's own security activity; nothing another person did, no internal ids. */
export const ActivityEntry = z.object({
  at: z.number(),
  kind: z.enum(ACTIVITY_KINDS),
  device: Device,
  country: z.nullable(z.string()),
  /** A sign-in's method (`sign_in`, `sign_in_failed`). */
  method: z.nullable(z.enum(SIGN_IN_METHODS)),
  /** The identity provider's name (a social or corporate sign-in, a linked or unlinked identity). */
  provider: z.nullable(z.string()),
  /** The factor added or removed: `totp` or `passkey`. */
  factor: z.nullable(z.enum(["totp", "passkey"])),
  /** The site or app granted or removed. */
  app: z.nullable(z.string()),
});
export const ActivityAnswer = z.object({ events: z.array(ActivityEntry), nextCursor: z.nullable(z.string()) });

/**
 * Issue #27, the person's security page: its calls and their schemas, declared apart from `api` and imported by
 * their own path (`@gatehouse/contract/security`), so that only the page's chunk carries them and the sign-in
 * route's JavaScript stays within its budget. `endpoints` (`@gatehouse/contract/endpoints`) holds them with every
 * other, for the server and its tests.
 */
export const securityApi = {
  /**
   * Issue #27: the person's sign-ins, newest activity first, one entry per sign-in (its linked sessions on other
   * hosts together). Another person's entry does not exist for them: ending it answers 404.
   */
  securitySessions: defineEndpoint({
    method: "GET",
    path: "/account/sessions",
    query: SecurityListQuery,
    answer: SessionsAnswer,
    statuses: [200, 400],
    session: "required",
    rateLimit: "securityRead",
  }),
  /**
   * Issue #27: ends one sign-in: its linked sessions, its provider sessions (back-channel logout to the sites that
   * asked for it), the apps' refresh tokens bound to it that are not offline, and the forum's session, through the
   * durable job queue. Ending the browser's own is a sign-out.
   */
  securitySessionEnd: defineEndpoint({
    method: "DELETE",
    path: "/account/sessions/{id}",
    params: SecurityEntryParams,
    answer: Empty,
    // 400: an id longer than any handle (SecurityEntryParams).
    statuses: [200, 400, 404],
    session: "required",
    rateLimit: "securityChange",
  }),
  /** Issue #27, "Sign out everywhere else": every other sign-in ends, and every offline refresh token is revoked. */
  securitySessionsEndOthers: defineEndpoint({
    method: "POST",
    path: "/account/sessions/end-others",
    answer: SessionsEndedAnswer,
    statuses: [200],
    session: "required",
    rateLimit: "securityChange",
  }),
  /** Issue #27: the sites and apps the person has granted access to (the provider's grants). */
  securityApps: defineEndpoint({
    method: "GET",
    path: "/account/apps",
    query: SecurityListQuery,
    answer: AppsAnswer,
    statuses: [200, 400],
    session: "required",
    rateLimit: "securityRead",
  }),
  /** Issue #27: removes an app's access: its grant, every token issued under it, its provider sessions. */
  securityAppRevoke: defineEndpoint({
    method: "DELETE",
    path: "/account/apps/{id}",
    params: SecurityEntryParams,
    answer: Empty,
    statuses: [200, 400, 404],
    session: "required",
    rateLimit: "securityChange",
  }),
  /** Issue #27: the person's own security activity from the audit trail, newest first. */
  securityActivity: defineEndpoint({
    method: "GET",
    path: "/account/activity",
    query: SecurityListQuery,
    answer: ActivityAnswer,
    statuses: [200, 400],
    session: "required",
    rateLimit: "securityRead",
  }),
} as const;
