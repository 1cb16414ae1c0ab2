import {
  type api,
  PASSWORD_RESET_TTL_MS,
  PASSWORD_SETUP_TTL_MS,
  RECOVERY_MAILS_PER_ADDRESS,
  routeUrl,
} from "@gatehouse/contract";
import type { z } from "zod";
import {
  type CodeRefusal,
  type CodeStatus,
  codeHash,
  codeRefusal,
  codeStatus,
  consumeCode,
  decoyCodeWork,
  issueCode,
} from "../codes/codes.ts";
import { queueUserMail } from "../mail/outbox.ts";
import { closeUserSessions } from "../sessions/sessions.ts";
import { codesStore } from "../store/codes.ts";
import type { Db } from "../store/db.ts";
import type { UserRow } from "../store/schema.ts";
import { throttleStore } from "../store/throttle.ts";
import { usersStore } from "../store/users.ts";
import { isCommonPassword } from "./common-passwords.ts";
import { identifierKey, normalizeEmail } from "./identifiers.ts";
import { hashPassword } from "./passwords.ts";
import { type Origin, sendActivation } from "./registration.ts";
import { clearFailures } from "./throttle.ts";

const linkTo = (publicUrl: URL, path: string) => new URL(path, publicUrl).href;

/**
 * Counts recovery mails per address in fixed windows (the window's end kept in `locked_until`); false once the
 * window's quota is spent. A fixed window, not a sliding one: asking every half hour cannot starve the owner.
 */
async function recoveryQuota(db: Db, email: string, now: number): Promise<boolean> {
  const key = identifierKey(`recover:${email}`);
  const row = await throttleStore.find(db, key);
  if (row && (row.locked_until ?? 0) <= now) await throttleStore.clear(db, key);
  const counted = await throttleStore.recordFailure(db, key, now);
  if (counted.failures === 1) await throttleStore.lock(db, key, now + RECOVERY_MAILS_PER_ADDRESS.windowMs, now);
  return counted.failures <= RECOVERY_MAILS_PER_ADDRESS.max;
}

/**
 * POST /account/recover: the same answer, and the same work, whether or not the address has an account
 * (ASVS 6.3.8 / issue #4): a code is made and a transaction written either way, and mail leaves through the
 * outbox, never on the request's time. An active account gets a reset link; a pending one a fresh activation
 * link (or, for an invited account without a password, a fresh set-up link).
 */
export async function requestRecovery(db: Db, email: string, origin: Origin, now = Date.now()): Promise<void> {
  const user = await usersStore.findByEmail(db, normalizeEmail(email));
  const allowed = await recoveryQuota(db, normalizeEmail(email), now);
  if (!user || !allowed || user.status === "disabled") return decoyCodeWork(db, now);
  await db.transaction().execute(async (trx) => {
    if (user.status === "pending" && user.password_hash === null) return sendSetup(trx, user, origin.publicUrl, now);
    if (user.status === "pending") return sendActivation(trx, user, origin, now);
    const code = await issueCode(trx, user.id, "password_reset", PASSWORD_RESET_TTL_MS, now);
    const link = linkTo(origin.publicUrl, routeUrl("PASSWORD_RESET", { code, return_to: origin.returnTo }));
    await queueUserMail(trx, user, "password_reset", link, origin.publicUrl, now);
  });
}

/** Issues an invitation's set-up code (7 days) and queues its mail. */
export async function sendSetup(db: Db, user: UserRow, publicUrl: URL, now = Date.now()): Promise<void> {
  const code = await issueCode(db, user.id, "password_setup", PASSWORD_SETUP_TTL_MS, now);
  await queueUserMail(
    db,
    user,
    "password_setup",
    linkTo(publicUrl, routeUrl("PASSWORD_SETUP", { code })),
    publicUrl,
    now,
  );
}

/** GET /account/recover/{code}: the state of a reset or set-up code, without using it. */
export async function passwordCodeStatus(db: Db, code: string, now = Date.now()): Promise<CodeStatus> {
  const row = await codesStore.findByHash(db, codeHash(code));
  if (row?.purpose === "password_setup") return codeStatus(db, code, "password_setup", now);
  return codeStatus(db, code, "password_reset", now);
}

export type PasswordRefusal = "common_password" | CodeRefusal;

/** Sets a new password: hash, no pending update, no sign-in block, and every session ends (ASVS 7.4.3). */
async function replacePassword(
  db: Db,
  user: UserRow,
  password: string,
  changes: Partial<UserRow>,
  now: number,
): Promise<void> {
  await usersStore.update(db, user.id, {
    password_hash: await hashPassword(password),
    required_password_update: 0,
    updated_at: now,
    ...changes,
  });
  await clearFailures(db, user.email_normalized);
  await closeUserSessions(db, user.id);
}

/** POST /account/reset_password: uses the reset code once, sets the password, ends sessions, mails a notice. */
export async function resetPassword(
  db: Db,
  code: string,
  password: string,
  publicUrl: URL,
  now = Date.now(),
): Promise<{ ok: true; userId: string } | { ok: false; refusal: PasswordRefusal }> {
  if (isCommonPassword(password)) return { ok: false, refusal: "common_password" };
  const used = await consumeCode(db, code, "password_reset", now);
  if (!used.ok) return { ok: false, refusal: codeRefusal(used.status) };
  const user = await usersStore.findById(db, used.userId);
  if (!user) return { ok: false, refusal: "code_invalid" };
  await db.transaction().execute(async (trx) => {
    await replacePassword(trx, user, password, {}, now);
    await queueUserMail(trx, user, "password_changed", linkTo(publicUrl, routeUrl("LOGIN")), publicUrl, now);
  });
  return { ok: true, userId: user.id };
}

type MarketingInfo = z.output<(typeof api.setupPassword)["body"]>["marketingInfo"];

/** POST /account/setup_password: an invited user chooses a password and answers the survey; the account is active. */
export async function setupPassword(
  db: Db,
  code: string,
  password: string,
  marketingInfo: MarketingInfo,
  now = Date.now(),
): Promise<{ ok: true; user: UserRow } | { ok: false; refusal: PasswordRefusal }> {
  if (isCommonPassword(password)) return { ok: false, refusal: "common_password" };
  const used = await consumeCode(db, code, "password_setup", now);
  if (!used.ok) return { ok: false, refusal: codeRefusal(used.status) };
  const user = await usersStore.findById(db, used.userId);
  if (!user) return { ok: false, refusal: "code_invalid" };
  const status = user.status === "disabled" ? "disabled" : "active";
  await replacePassword(db, user, password, { status, marketing_info: JSON.stringify(marketingInfo) }, now);
  return { ok: true, user: { ...user, status } };
}
