import type { SignInMethod } from "@gatehouse/contract";
import { maySignInElsewhere } from "../accounts/finish-sign-in.ts";
import type { Config } from "../config.ts";
import { sessionCookieName } from "../http/session.ts";
import { findSession, isSessionToken, sessionId } from "../sessions/sessions.ts";
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
 * lifetime, active account), and whether it may continue to another site: the authentication core's own rule
 * (`maySignInElsewhere`, issue #10 §1), decided from the step the session owes, recorded when it was opened.
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
    amr: [...AUTHENTICATION_METHODS[session.auth_method]],
    // A site must not receive a person who has still to change their password or complete their profile.
    mayContinue: maySignInElsewhere(session),
    owedStep: OWED_STEPS[session.pending_step ?? "none"],
  };
}

/**
 * RFC 8176 names for how a session was opened: a password; a one-time code mailed to the person (the activation
 * link's sign-in); or another identity provider (social, corporate, the forum) — "fed".
 */
const AUTHENTICATION_METHODS: Record<SignInMethod, readonly string[]> = {
  password: ["pwd"],
  password_setup: ["pwd"],
  activation: ["otp"],
  social: ["fed"],
  corporate: ["fed"],
  forum: ["fed"],
};

/** The interaction API's names for the step a session owes (spec §4: the password change comes first). */
const OWED_STEPS = { password_change: "password", profile_update: "profile", none: undefined } as const;
