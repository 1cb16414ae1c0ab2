import type { SECOND_FACTOR_METHODS } from "@gatehouse/contract";
import { revokeOfflineGrants } from "../accounts/access-lost.ts";
import { recheckPassword } from "../accounts/recheck-password.ts";
import type { AttemptSource } from "../accounts/throttle.ts";
import { audit } from "../audit/audit.ts";
import type { MailSite } from "../mail/links.ts";
import type { Db } from "../store/db.ts";
import type { UserRow } from "../store/schema.ts";
import { secondFactorsStore } from "../store/second-factors.ts";
import type { SessionWithUser } from "../store/sessions.ts";
import { usersStore } from "../store/users.ts";
import { factorsOf, hasSecondFactor } from "./factors.ts";
import { notifyFactorChange } from "./notify.ts";
import { newRecoveryCodes } from "./recovery-codes.ts";
import { forgetBrowsers } from "./remembered-browsers.ts";
import { type CodeSource, checkCode } from "./second-factor.ts";
import { freshUntil, refreshSession } from "./step-up.ts";
import { newTotpSecret, sealSecret, totpUri } from "./totp.ts";

/**
 * The person's own management of their second factors (issue #26, Edit account → "Sign-in and security"): the
 * authenticator app, recovery codes, and the step-up proof the sensitive ones need (http/mount.ts `fresh`).
 */

/** Who acts, from where, in which session, with the secret the authenticator's secret is sealed under. */
export interface Actor {
  session: SessionWithUser;
  sessionSecret: string;
  site: MailSite;
  source: AttemptSource & CodeSource;
}

async function accountOf(db: Db, session: SessionWithUser): Promise<UserRow> {
  const user = await usersStore.findById(db, session.user_id);
  // The session guard found the session with its user: a user gone since is a session that no longer counts.
  if (!user) throw new Error("the session's account is gone");
  return user;
}

const who = (actor: Actor) => ({
  userId: actor.session.user_id,
  ip: actor.source.client?.ip ?? null,
  userAgent: actor.source.client?.userAgent ?? null,
});

/** GET /account/security: what the section shows. */
export async function securityOf(db: Db, session: SessionWithUser, now = Date.now()) {
  const user = await accountOf(db, session);
  const [factors, passkeys, fresh] = await Promise.all([
    factorsOf(db, user.id),
    secondFactorsStore.passkeysOf(db, user.id),
    freshUntil(db, session, now),
  ]);
  return {
    hasPassword: user.password_hash !== null,
    totp: factors.totp,
    recoveryCodesLeft: factors.recoveryCodesLeft,
    passkeys: passkeys.map((row) => ({
      id: row.id,
      name: row.name,
      createdAt: Number(row.created_at),
      lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
      backedUp: Number(row.backed_up) === 1,
    })),
    freshUntil: fresh,
  };
}

/**
 * "Turn on" an authenticator app: a new secret, pending until a code confirms it (an earlier pending one is
 * replaced). Refused while one is confirmed: it is turned off first (a second app would be a second secret to steal).
 */
export async function startTotp(
  db: Db,
  actor: Actor,
  issuer: string,
  now = Date.now(),
): Promise<{ ok: true; secret: string; uri: string } | { ok: false; refusal: "totp_already_enabled" }> {
  const user = await accountOf(db, actor.session);
  const secret = newTotpSecret();
  const written = await secondFactorsStore.putPendingTotp(
    db,
    user.id,
    sealSecret(actor.sessionSecret, user.id, secret),
    now,
  );
  if (!written) return { ok: false, refusal: "totp_already_enabled" };
  return { ok: true, secret, uri: totpUri(secret, user.email, issuer) };
}

export type ConfirmRefusal =
  | "not_found"
  | "totp_already_enabled"
  | "second_factor_invalid"
  | "user_temporarily_blocked";

/**
 * A code of the pending secret confirms it: the app counts from now on. The person has just proven the new factor
 * in a fresh session, so the session is fresh with `mfa` (a client that requires MFA can continue). The first
 * second factor of an account comes with its recovery codes (shown once); the person is mailed.
 */
export async function confirmTotp(
  db: Db,
  actor: Actor,
  code: string,
  now = Date.now(),
): Promise<{ ok: true; recoveryCodes?: string[] } | { ok: false; refusal: ConfirmRefusal }> {
  const user = await accountOf(db, actor.session);
  const row = await secondFactorsStore.findTotp(db, user.id);
  if (!row) return { ok: false, refusal: "not_found" };
  if (row.confirmed_at !== null) return { ok: false, refusal: "totp_already_enabled" };
  const checked = await checkCode(
    db,
    { user, method: "totp", code, sessionSecret: actor.sessionSecret, source: actor.source, pending: true },
    now,
  );
  if (!checked.ok) return checked;
  const hadFactor = hasSecondFactor(await factorsOf(db, user.id));
  const confirmed = await db.transaction().execute(async (trx) => {
    // Only the secret the code was checked against (a "Turn on" in another tab meanwhile replaced it: the person
    // never saw the new one, so it is not confirmed). Two confirmations at once: one confirms, the other changes
    // nothing (and makes no second set of codes).
    if (!(await secondFactorsStore.confirmTotp(trx, user.id, row.secret_sealed, now))) return { won: false } as const;
    const codes = hadFactor ? undefined : await newRecoveryCodes(trx, actor.sessionSecret, user.id, now);
    await notifyFactorChange(trx, user, { kind: "added", factor: "totp" }, actor.site, now);
    await audit(trx, "second_factor_added", { ...who(actor), detail: "totp" }, now);
    if (codes) await audit(trx, "recovery_codes_created", who(actor), now);
    return { won: true, codes } as const;
  });
  if (!confirmed.won) {
    const current = await secondFactorsStore.findTotp(db, user.id);
    // The same secret confirmed by a concurrent request is a success; a replaced secret is not.
    if (current?.secret_sealed !== row.secret_sealed || current.confirmed_at === null) {
      return { ok: false, refusal: "second_factor_invalid" };
    }
  }
  await refreshSession(db, actor.session, ["otp", "mfa"], now);
  return confirmed.won && confirmed.codes ? { ok: true, recoveryCodes: confirmed.codes } : { ok: true };
}

/**
 * "Turn off" the authenticator app. When it was the last second factor, the recovery codes (the way back in when a
 * factor is lost) and the remembered browsers go too, and the mail says so.
 */
export async function removeTotp(db: Db, actor: Actor, now = Date.now()): Promise<void> {
  const user = await accountOf(db, actor.session);
  await db.transaction().execute(async (trx) => {
    const removed = await secondFactorsStore.deleteTotp(trx, user.id);
    if (!removed) return; // none, or only a pending secret: nothing protected the account, nothing to tell
    const lastFactor = !hasSecondFactor(await factorsOf(trx, user.id));
    if (lastFactor) {
      await secondFactorsStore.deleteRecoveryCodes(trx, user.id);
      await forgetBrowsers(trx, user.id);
    }
    // Issue #27: the apps that stay signed in without a session lose their access: whoever removed the factor may
    // have let one in (docs/decisions.md "What a password change ends").
    await revokeOfflineGrants(trx, user.id, now);
    await notifyFactorChange(trx, user, { kind: "removed", factor: "totp", lastFactor }, actor.site, now);
    await audit(trx, "second_factor_removed", { ...who(actor), detail: "totp" }, now);
  });
}

/** A new set of recovery codes (the previous set stops working); only for an account with a second factor. */
export async function regenerateRecoveryCodes(
  db: Db,
  actor: Actor,
  now = Date.now(),
): Promise<{ ok: true; recoveryCodes: string[] } | { ok: false; refusal: "invalid_request" }> {
  const userId = actor.session.user_id;
  if (!hasSecondFactor(await factorsOf(db, userId))) return { ok: false, refusal: "invalid_request" };
  const recoveryCodes = await db.transaction().execute(async (trx) => {
    const codes = await newRecoveryCodes(trx, actor.sessionSecret, userId, now);
    await audit(trx, "recovery_codes_created", who(actor), now);
    return codes;
  });
  return { ok: true, recoveryCodes };
}

export type ReauthRefusal =
  | "invalid_request"
  | "password_required"
  | "current_password_incorrect"
  | "second_factor_invalid"
  | "user_temporarily_blocked";

/**
 * POST /account/reauthenticate (step-up; ASVS 6.x re-authentication, NIST SP 800-63B §4.2.3): the password when
 * the account has one (checked under the password throttle) AND the second factor's code when it has one (under
 * the codes' throttle). An account with neither cannot prove itself here: it signs in again.
 */
export async function reauthenticate(
  db: Db,
  actor: Actor,
  input: { password?: string; method?: (typeof SECOND_FACTOR_METHODS)[number]; code?: string },
  now = Date.now(),
): Promise<{ ok: true; freshUntil: number } | { ok: false; refusal: ReauthRefusal }> {
  const user = await accountOf(db, actor.session);
  const withFactor = hasSecondFactor(await factorsOf(db, user.id));
  const stored = user.password_hash;
  if (!stored && !withFactor) return { ok: false, refusal: "invalid_request" };
  if (stored && !input.password) return { ok: false, refusal: "password_required" };
  if (withFactor && (!input.method || !input.code)) return { ok: false, refusal: "invalid_request" };
  const amr: string[] = [];
  if (stored && input.password) {
    const wrong = await recheckPassword(db, { ...user, password_hash: stored }, input.password, actor.source, now);
    if (wrong) return { ok: false, refusal: wrong };
    amr.push("pwd");
  }
  if (withFactor && input.method && input.code) {
    const checked = await checkCode(
      db,
      {
        user,
        method: input.method,
        code: input.code,
        sessionSecret: actor.sessionSecret,
        source: actor.source,
        noticeSite: actor.site,
      },
      now,
    );
    if (!checked.ok) return checked;
    amr.push("otp", "mfa");
  }
  const until = await refreshSession(db, actor.session, amr, now);
  await audit(db, "reauthenticated", { ...who(actor), detail: amr.join(" ") }, now);
  return { ok: true, freshUntil: until };
}
