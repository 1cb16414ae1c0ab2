import { hash } from "node:crypto";
import { type NextStep, type OwedStep, SIGN_IN_ATTEMPT_TTL_MS } from "@gatehouse/contract";
import { accountRefusal, owedStepOf } from "../accounts/account-status.ts";
import { startTrial } from "../accounts/trials.ts";
import { audit } from "../audit/audit.ts";
import { type DeviceCookie, owesSecondFactor } from "../factors/remembered-browsers.ts";
import { linkPendingAfterFactor } from "../federation/accounts.ts";
import { type ClientMeta, closeSessionOfAnother, openSession, replaceSession } from "../sessions/sessions.ts";
import type { Db } from "../store/db.ts";
import type { SignInAttemptRow, UserRow } from "../store/schema.ts";
import { signInAttemptsStore } from "../store/sign-in-attempts.ts";
import { learnBrowser, type SeenBrowser } from "./known-browsers.ts";
import { type Destination, type NextContext, nextStep } from "./next.ts";
import type { Amr, Proof, Refusal } from "./proofs.ts";

/** The browser a sign-in happens in. */
export interface Browser {
  /** The browser's cookie token (a visitor's or a signed-in one): an attempt is bound to it. */
  token: string;
  /** The token of its signed-in session, when it has one: a finished sign-in replaces it (ASVS 7.2.4). */
  signedIn?: string | undefined;
  client: ClientMeta;
  /** Its device cookie (accounts/device-cookies.ts), when it has one: a remembered browser skips the second factor. */
  device?: DeviceCookie | undefined;
  /**
   * The browser as the account will know it once the sign-in finishes (issue #27's new-browser notice): learnt in
   * the transaction that opens the session (issue #28), so no notice is lost to a crash after the session opened.
   */
  seen?: SeenBrowser | undefined;
}

/** A sign-in's outcome: where the person goes next, and the new session's token once the sign-in is finished. */
export type SignInOutcome = { ok: true; next: NextStep; session?: string } | { ok: false; refusal: Refusal };

/** The attempt's key: the browser's token is never stored (a stolen table binds nothing). */
const attemptId = (browserToken: string) => hash("sha256", `sign-in-attempt:${browserToken}`, "hex");

/**
 * A proof is given (a verifier's answer): the sign-in attempt (issue #24 §1). The account's state is checked once
 * more (a provider's or a mailed code's proof does not check it); then either the person owes a step — the attempt
 * is kept for this browser and no session opens — or the sign-in is finished and opens one.
 */
export async function signIn(
  db: Db,
  proof: Proof,
  browser: Browser,
  destination: Destination,
  context: NextContext,
  now = Date.now(),
): Promise<SignInOutcome> {
  const { user } = proof;
  const refusal = accountRefusal(user);
  if (refusal) {
    const detail = `${proof.method}: ${refusal}`;
    await audit(db, "sign_in_failed", { ...auditOf(user, browser), method: proof.method, detail }, now);
    return { ok: false, refusal: { code: refusal } };
  }
  // Issue #26: an account with a second factor owes it first, before any other step and before any session opens.
  const owes = (await owesSecondFactor(db, user, proof.amr, browser.device, now)) ? "second_factor" : owedStepOf(user);
  if (!owes) {
    // A finished sign-in leaves no earlier unfinished one behind in this browser.
    await signInAttemptsStore.delete(db, attemptId(browser.token));
    return finish(db, { user, proof, authTime: now }, browser, destination, context, now);
  }
  // Another person's session in this browser ends now: a shared computer never keeps the previous person signed in
  // while the next one changes a password.
  if (browser.signedIn) await closeSessionOfAnother(db, browser.signedIn, user.id);
  await signInAttemptsStore.put(db, {
    id: attemptId(browser.token),
    user_id: user.id,
    method: proof.method,
    idp: proof.idp ?? null,
    amr: proof.amr.join(" "),
    auth_time: now,
    owes,
    destination: JSON.stringify(destination),
    expires_at: now + SIGN_IN_ATTEMPT_TTL_MS,
  });
  return { ok: true, next: nextStep(owes, destination, context) };
}

/** The browser's unfinished sign-in, when it has one that has not expired. */
export function findAttempt(db: Db, browserToken: string, now = Date.now()): Promise<SignInAttemptRow | undefined> {
  return signInAttemptsStore.find(db, attemptId(browserToken), now);
}

/** Signing out ends the browser's unfinished sign-in too (its step's screen is left, or "Sign out" chosen there). */
export async function cancelAttempt(db: Db, browserToken: string): Promise<void> {
  await signInAttemptsStore.delete(db, attemptId(browserToken));
}

/** Where an unfinished attempt goes now: the screen of the step it owes. */
export function attemptNext(attempt: SignInAttemptRow, context: NextContext): NextStep {
  return nextStep(attempt.owes, destinationOf(attempt), context);
}

/**
 * The step an attempt owed is done (the second factor given, the password changed, the profile saved): it owes the
 * account's next step, or it is finished and opens the session. `user` is the account as it is after the step. Only
 * one request moves an attempt on (two tabs saving at once: the other is told the attempt is gone). `added` are the
 * RFC 8176 values the step's proof adds to the attempt's (a second factor's `otp`, `hwk`/`swk`, `user`, and `mfa`).
 */
export async function stepDone(
  db: Db,
  attempt: SignInAttemptRow,
  done: OwedStep,
  user: UserRow,
  browser: Browser,
  context: NextContext,
  now = Date.now(),
  added: readonly Amr[] = [],
): Promise<SignInOutcome> {
  const destination = destinationOf(attempt);
  const owes = owedStepOf(user);
  if (owes) {
    // The step's proof joins the attempt's (a second factor before a required password change: the session that
    // opens after it still says `mfa`).
    const amr = [...new Set([...(attempt.amr.split(" ") as Amr[]), ...added])].join(" ");
    const moved = await signInAttemptsStore.advance(db, attempt.id, done, owes, amr);
    if (!moved) return gone();
    if (done === "second_factor") await afterFactor(db, attempt, destination, user, browser, now);
    return { ok: true, next: nextStep(owes, destination, context) };
  }
  const taken = await signInAttemptsStore.take(db, attempt.id, done, now);
  if (!taken) return gone();
  if (done === "second_factor") await afterFactor(db, taken, destination, user, browser, now);
  const proof: Proof = {
    user,
    method: taken.method,
    amr: [...new Set([...(taken.amr.split(" ") as Amr[]), ...added])],
    ...(taken.idp ? { idp: taken.idp } : {}),
  };
  return finish(db, { user, proof, authTime: taken.auth_time }, browser, destination, context, now);
}

/**
 * What a password alone must not do to an account with a second factor happens only now, once the factor is given
 * too: a provider's identity linked behind the password (federation/accounts.ts linkPendingAfterFactor), and the
 * trial a trial-mode sign-in starts.
 */
async function afterFactor(
  db: Db,
  attempt: SignInAttemptRow,
  destination: Destination,
  user: UserRow,
  browser: Browser,
  now: number,
): Promise<void> {
  if (attempt.method === "social") {
    await linkPendingAfterFactor(db, browser.token, user, attempt.idp, browser.client, now);
  }
  if (destination.trial) await startTrial(db, user, destination.trial, now);
}

const gone = (): SignInOutcome => ({ ok: false, refusal: { code: "not_authenticated" } });

/**
 * A finished sign-in opens its session (the only place one opens for a proof): a new token replacing the browser's
 * previous session (ASVS 7.2.4), `amr` and `auth_time` from the attempt's proofs, and the audit event.
 */
async function finish(
  db: Db,
  finished: { user: UserRow; proof: Proof; authTime: number },
  browser: Browser,
  destination: Destination,
  context: NextContext,
  now: number,
): Promise<SignInOutcome> {
  const { user, proof } = finished;
  // Disabled while a step was being done (the admin command line): the attempt ends without a session.
  const refusal = accountRefusal(user);
  if (refusal) return { ok: false, refusal: { code: refusal } };
  // The previous session's end is its own transaction: another person's sign-out reaches the forum's hook (events/).
  if (browser.signedIn) await replaceSession(db, browser.signedIn, user.id);
  const record = { userId: user.id, method: proof.method, idp: proof.idp ?? null, amr: proof.amr };
  const detail = proof.idp ? `${proof.method} (${proof.idp})` : proof.method;
  const { seen } = browser;
  // The session, its audit event and the new-browser notice commit together (issue #28: a side effect is queued in
  // the transaction of the change that causes it).
  const session = await db.transaction().execute(async (trx) => {
    const token = await openSession(trx, { ...record, authTime: finished.authTime }, browser.client, now);
    await audit(trx, "sign_in", { ...auditOf(user, browser), method: proof.method, detail }, now);
    if (seen) await learnBrowser(trx, user, seen, now);
    return token;
  });
  return { ok: true, session, next: nextStep(null, destination, context) };
}

function destinationOf(attempt: SignInAttemptRow): Destination {
  const stored = JSON.parse(attempt.destination) as Destination;
  return {
    landing: stored.landing,
    ...(stored.returnTo ? { returnTo: stored.returnTo } : {}),
    ...(stored.trial ? { trial: stored.trial } : {}),
  };
}

const auditOf = (user: UserRow, browser: Browser) => ({
  userId: user.id,
  ip: browser.client.ip,
  userAgent: browser.client.userAgent,
  country: browser.client.country ?? null,
});
