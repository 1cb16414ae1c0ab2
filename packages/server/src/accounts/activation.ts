import { createHash } from "node:crypto";
import {
  type CodeRefusal,
  type CodeStatus,
  codeHash,
  codeRefusal,
  consumeCode,
  decoyCodeWork,
} from "../codes/codes.ts";
import { codesStore } from "../store/codes.ts";
import type { Db } from "../store/db.ts";
import type { UserRow } from "../store/schema.ts";
import { usersStore } from "../store/users.ts";
import { normalizeEmail } from "./identifiers.ts";
import { proveMailbox } from "./mailbox.ts";
import type { Origin } from "./origin.ts";
import { sendActivation } from "./registration.ts";

export type ActivationRefusal = CodeRefusal | "account_already_active";
export type ActivationOutcome = { ok: true; user: UserRow } | { ok: false; refusal: ActivationRefusal };

/**
 * Uses an activation code once and makes a pending account active. A disabled account stays disabled.
 *
 * An identity linked to a pending account came from a provider that did not vouch for the address (Facebook): it
 * stays only when the activation comes from the browser that registered with it (`signup_meta.browser`, the hash
 * of its session cookie). Anyone can give a provider someone else's address; if the address's owner activated the
 * account from their own mailbox, the stranger's identity must not keep a way in (pre-account takeover, ASVS 6.8.x).
 */
export async function activateAccount(
  db: Db,
  code: string,
  browser: string | undefined,
  now = Date.now(),
): Promise<ActivationOutcome> {
  // The code is spent in the transaction that activates the account, so a node killed in between leaves both as
  // they were (issue #14): never a used link with the account still pending.
  return db.transaction().execute(async (trx): Promise<ActivationOutcome> => {
    const used = await consumeCode(trx, code, "activation", now);
    if (!used.ok) return { ok: false, refusal: await refusalOf(trx, code, used.status) };
    const user = await usersStore.findById(trx, used.userId);
    if (!user) return { ok: false, refusal: "code_invalid" };
    if (user.status !== "pending") return { ok: true, user };
    const registeredIn = signupBrowser(user);
    const sameBrowser = registeredIn !== undefined && browser !== undefined && registeredIn === browserHash(browser);
    return { ok: true, user: await proveMailbox(trx, user, { keepIdentities: sameBrowser, now }) };
  });
}

/**
 * Issue #25: a used link whose account is active says so (the person signs in); the stored row (its hash) names the
 * account. Only a code that was issued and used gets this answer, so it tells nothing the link's holder did not
 * know; an unknown or forged code stays code_invalid, and a disabled account's used link stays code_used.
 */
async function refusalOf(db: Db, code: string, status: Exclude<CodeStatus, "valid">): Promise<ActivationRefusal> {
  if (status !== "used") return codeRefusal(status);
  const row = await codesStore.findByHash(db, codeHash(code));
  const user = row ? await usersStore.findById(db, row.user_id) : undefined;
  return user?.status === "active" ? "account_already_active" : "code_used";
}

const browserHash = (token: string) => createHash("sha256").update(token).digest("hex");

/** The browser a provider's registration came from (federation/accounts.ts), when it did. */
function signupBrowser(user: UserRow): string | undefined {
  try {
    const meta = user.signup_meta ? (JSON.parse(user.signup_meta) as { browser?: unknown }) : {};
    return typeof meta.browser === "string" ? meta.browser : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Sends a new activation link when the address has a pending account, and does nothing otherwise; the caller
 * answers the same either way, and a decoy of the same work keeps the time the same too, so the call tells
 * nobody which addresses have accounts.
 */
export async function resendActivation(db: Db, email: string, origin: Origin, now = Date.now()): Promise<boolean> {
  const user = await usersStore.findByEmail(db, normalizeEmail(email));
  if (user?.status !== "pending") {
    await decoyCodeWork(db, now);
    return false;
  }
  // The mail's language, look and link are those of the page the visitor asked on (brand and language).
  await db.transaction().execute((trx) => sendActivation(trx, user, origin, now));
  return true;
}
