import { hash, randomBytes, randomUUID } from "node:crypto";
import { captchasStore } from "../store/captchas.ts";
import { codesStore } from "../store/codes.ts";
import type { Db } from "../store/db.ts";
import type { CodePurpose } from "../store/schema.ts";

export type CodeStatus = "valid" | "invalid" | "expired" | "used";

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
 * the newest link in the mailbox counts.
 */
export async function issueCode(
  db: Db,
  userId: string,
  purpose: CodePurpose,
  ttlMs: number,
  now = Date.now(),
): Promise<string> {
  const code = newCode();
  await codesStore.retireOpen(db, userId, purpose, now);
  await codesStore.insert(db, {
    id: randomUUID(),
    user_id: userId,
    purpose,
    code_hash: codeHash(code),
    created_at: now,
    expires_at: now + ttlMs,
    used_at: null,
  });
  return code;
}

/** Tells a code's state without using it. A code of another purpose is invalid. */
export async function codeStatus(db: Db, code: string, purpose: CodePurpose, now = Date.now()): Promise<CodeStatus> {
  const row = await codesStore.findByHash(db, codeHash(code));
  if (!row || row.purpose !== purpose) return "invalid";
  if (row.used_at !== null) return "used";
  if (row.expires_at <= now) return "expired";
  return "valid";
}

/** Uses a code once: the first caller wins, every later one sees "used". */
export async function consumeCode(
  db: Db,
  code: string,
  purpose: CodePurpose,
  now = Date.now(),
): Promise<{ ok: true; userId: string } | { ok: false; status: Exclude<CodeStatus, "valid"> }> {
  const row = await codesStore.findByHash(db, codeHash(code));
  if (!row || row.purpose !== purpose) return { ok: false, status: "invalid" };
  if (row.used_at !== null) return { ok: false, status: "used" };
  if (row.expires_at <= now) return { ok: false, status: "expired" };
  if (!(await codesStore.markUsed(db, row.id, now))) return { ok: false, status: "used" };
  return { ok: true, userId: row.user_id };
}
