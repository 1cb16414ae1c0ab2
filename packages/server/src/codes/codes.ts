import { hash, randomBytes, randomUUID } from "node:crypto";
import { captchasStore } from "../store/captchas.ts";
import { codesStore } from "../store/codes.ts";
import type { Db } from "../store/db.ts";
import type { CodePurpose, CodeRow } from "../store/schema.ts";
import { usersStore } from "../store/users.ts";

export type CodeStatus = "valid" | "invalid" | "expired" | "used" | "superseded";
/** The error code for a code that cannot be used: `code_invalid`, `code_expired`, `code_used`, `code_superseded`. */
export type CodeRefusal = `code_${Exclude<CodeStatus, "valid">}`;

/** One mapping from a code's state to its refusal, for every kind of mailed link. */
export function codeRefusal(status: Exclude<CodeStatus, "valid">): CodeRefusal {
  return `code_${status}`;
}

/** 256 random bits, base64url: unguessable, fits a URL (ASVS 6.5.x one-time secrets). */
function newCode(): string {
  return randomBytes(32).toString("base64url");
}

/** Codes are kept as SHA-256 hashes: a leaked table holds no working link. */
export function codeHash(code: string): string {
  return hash("sha256", code, "hex");
}

/**
 * The work of issuing a code and queueing its mail, done for nobody, so that a call whose answer must not tell
 * whether an address has an account also takes as long either way (ASVS 6.3.8): one code's randomness and
 * hashing, one small transaction (a row in the spent-token table that the sweeper removes after a minute).
 */
export async function decoyCodeWork(db: Db, now = Date.now()): Promise<void> {
  const decoy = codeHash(newCode());
  await db.transaction().execute(async (trx) => {
    await captchasStore.spend(trx, hash("sha256", `decoy:${decoy}`, "hex"), now + 60_000);
  });
}

/**
 * Issues a single-use code for one purpose; the user's earlier open codes of that purpose stop working, so only
 * the newest link in the mailbox counts. Call it in the transaction that queues its mail: two links asked for at
 * the same moment (two nodes) take turns on the account's row, so the second retires the first (issue #14).
 */
export async function issueCode(
  db: Db,
  userId: string,
  purpose: CodePurpose,
  ttlMs: number,
  now = Date.now(),
): Promise<string> {
  const code = newCode();
  await usersStore.lock(db, userId);
  await codesStore.retireOpen(db, userId, purpose, now);
  await codesStore.insert(db, {
    id: randomUUID(),
    user_id: userId,
    purpose,
    code_hash: codeHash(code),
    created_at: now,
    expires_at: now + ttlMs,
    used_at: null,
    superseded_at: null,
  });
  return code;
}

/**
 * The state of a stored code. A retired code says so even after its time ran out: "use the newest mail" is the
 * more useful advice.
 */
function stateOf(row: CodeRow | undefined, purpose: CodePurpose, now: number): CodeStatus {
  if (!row || row.purpose !== purpose) return "invalid";
  if (row.used_at !== null) return "used";
  if (row.superseded_at !== null) return "superseded";
  if (row.expires_at <= now) return "expired";
  return "valid";
}

/** Tells a code's state without using it. A code of another purpose is invalid. */
export async function codeStatus(db: Db, code: string, purpose: CodePurpose, now = Date.now()): Promise<CodeStatus> {
  return stateOf(await codesStore.findByHash(db, codeHash(code)), purpose, now);
}

/** Uses a code once: the first caller wins, every later one sees "used" (or "superseded" if a newer link won). */
export async function consumeCode(
  db: Db,
  code: string,
  purpose: CodePurpose,
  now = Date.now(),
): Promise<{ ok: true; userId: string } | { ok: false; status: Exclude<CodeStatus, "valid"> }> {
  const row = await codesStore.findByHash(db, codeHash(code));
  if (!row) return { ok: false, status: "invalid" };
  const status = stateOf(row, purpose, now);
  if (status !== "valid") return { ok: false, status };
  if (await codesStore.markUsed(db, row.id, now)) return { ok: true, userId: row.user_id };
  // Somebody won the race: tell which way, used or retired by a newer link.
  const after = stateOf(await codesStore.findByHash(db, codeHash(code)), purpose, now);
  return { ok: false, status: after === "valid" ? "used" : after };
}

/** A code found unusable when the work's transaction tried to spend it: the transaction rolls back (issue #28). */
export class CodeNotUsable extends Error {
  readonly status: Exclude<CodeStatus, "valid">;
  constructor(status: Exclude<CodeStatus, "valid">) {
    super(`code ${status}`);
    this.status = status;
  }
}

/**
 * The account a code would act for, without using it: the work behind a link (a password's hash, a farewell mail)
 * is prepared only for a link that can still be used, then done with `spendCode` in one transaction.
 */
export async function usableCode(
  db: Db,
  code: string,
  purpose: CodePurpose,
  now = Date.now(),
): Promise<{ ok: true; userId: string } | { ok: false; status: Exclude<CodeStatus, "valid"> }> {
  const row = await codesStore.findByHash(db, codeHash(code));
  const status = stateOf(row, purpose, now);
  if (status !== "valid" || !row) return { ok: false, status: status === "valid" ? "invalid" : status };
  return { ok: true, userId: row.user_id };
}

/**
 * Issue #28: spends a code inside the transaction that does its work, so a crash or a failure leaves either a used
 * link with the work done or an unused link (ASVS 6.3.x single use). Throws `CodeNotUsable` (rolling the
 * transaction back) when another request spent it first, or it is not the account's code the caller prepared for.
 */
export async function spendCode(trx: Db, code: string, purpose: CodePurpose, userId: string, now: number) {
  const used = await consumeCode(trx, code, purpose, now);
  if (!used.ok) throw new CodeNotUsable(used.status);
  if (used.userId !== userId) throw new CodeNotUsable("invalid");
}
