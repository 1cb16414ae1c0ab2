import { randomUUID } from "node:crypto";
import { auditStore } from "../store/audit.ts";
import type { Db } from "../store/db.ts";

/** The security events we record (issue #5). */
export type AuditEvent =
  | "sign_in"
  | "sign_in_failed"
  | "session_linked"
  /** Issue #13: the gateway session signed the person in to another service (the forum): detail names it. */
  | "signed_in_elsewhere"
  | "identity_linked"
  | "identity_unlinked"
  | "lockout"
  | "unlock"
  | "password_changed"
  | "password_reset"
  | "password_setup"
  | "profile_updated"
  | "deletion_requested"
  | "account_deleted"
  | "admin";

export interface AuditContext {
  userId?: string | null;
  ip?: string | null;
  userAgent?: string | null;
  detail?: string | null;
}

/** Records one event. Never a password, code or token: only who, when, from where, and a short reason. */
export async function audit(db: Db, event: AuditEvent, context: AuditContext = {}, at = Date.now()): Promise<void> {
  await auditStore.insert(db, {
    id: randomUUID(),
    at,
    event,
    user_id: context.userId ?? null,
    ip: context.ip?.slice(0, 64) ?? null,
    user_agent: context.userAgent?.slice(0, 512) ?? null,
    detail: context.detail?.slice(0, 1000) ?? null,
  });
}
