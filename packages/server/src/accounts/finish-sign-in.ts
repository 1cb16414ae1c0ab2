import type { AnswerOf, api, RequiredStep, SignInMethod } from "@gatehouse/contract";
import { audit } from "../audit/audit.ts";
import { type ClientMeta, openSession, replaceSession } from "../sessions/sessions.ts";
import type { Db } from "../store/db.ts";
import type { UserRow } from "../store/schema.ts";
import type { SessionWithUser } from "../store/sessions.ts";
import { type AccountRefusal, accountRefusal, requiredStepOf } from "./account-status.ts";

/** A sign-in whose proof is done (a password, a mailed code, an identity provider's answer), to be finished. */
export interface ProvenSignIn {
  user: UserRow;
  method: SignInMethod;
  /** The identity provider of a social or corporate sign-in. */
  idp?: string;
  client: ClientMeta;
  /** The browser's signed-in session, if any: the new sign-in replaces it. */
  replacing?: string;
}

export type FinishOutcome =
  | { ok: true; token: string; step: RequiredStep | null }
  | { ok: false; refusal: AccountRefusal };

/**
 * Finishes every sign-in, whatever proved it (issue #10 §1), as a pipeline: account status → the step it owes →
 * a new session recording `auth_time`, method, provider and that step → the audit event. The step is decided
 * here, on the server, so no client (the web app, the provider, a brand's site) can skip it.
 */
export async function finishSignIn(db: Db, proof: ProvenSignIn, now = Date.now()): Promise<FinishOutcome> {
  const { user, method, client } = proof;
  const context = { userId: user.id, ip: client.ip, userAgent: client.userAgent };
  const refusal = accountRefusal(user);
  if (refusal) {
    await audit(db, "sign_in_failed", { ...context, method, detail: `${method}: ${refusal}` }, now);
    return { ok: false, refusal };
  }
  const step = requiredStepOf(user);
  // ASVS 7.2.4: a sign-in always gets a new token; the browser's previous signed-in session ends with it.
  if (proof.replacing) await replaceSession(db, proof.replacing, user.id);
  const token = await openSession(db, { userId: user.id, method, idp: proof.idp ?? null, step }, client, now);
  await audit(db, "sign_in", { ...context, method, detail: proof.idp ? `${method} (${proof.idp})` : method }, now);
  return { ok: true, token, step };
}

/** The login answer of spec §7: what the account still has to do. */
export function loginAnswer(user: UserRow): AnswerOf<typeof api.login> {
  return {
    RequiredPasswordUpdate: user.required_password_update === 1,
    RequiredProfileUpdate: user.required_profile_update === 1,
  };
}

/**
 * May this gateway session sign the person in elsewhere (the OIDC provider, the legacy token, the forum)? Only a
 * live session of an active account that owes no step (issue #10 §1: a site must not skip the password change).
 */
export function maySignInElsewhere(session: SessionWithUser | undefined): session is SessionWithUser {
  return session !== undefined && accountRefusal(session) === undefined && session.pending_step === null;
}
