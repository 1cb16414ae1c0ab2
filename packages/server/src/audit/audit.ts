import { randomUUID } from "node:crypto";
import { counts, type SignInLabel } from "../metrics/counts.ts";
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
  /** Issue #25: an account without a password asked for a set-up link (mailed only when it has none). */
  | "setup_link_requested"
  | "profile_updated"
  | "deletion_requested"
  | "account_deleted"
  /** Issue #26: second factors added, removed, used wrongly; recovery codes made or used; a step-up proof. */
  | "second_factor_added"
  | "second_factor_removed"
  | "second_factor_failed"
  | "recovery_codes_created"
  | "recovery_code_used"
  | "reauthenticated"
  /** Issue #26: an administrator removed every second factor of the account (admin CLI `factors:reset`). */
  | "second_factors_reset"
  /** Issue #26: a passkey refused for a signature counter that did not move forward (a cloned authenticator?). */
  | "passkey_refused"
  /** Issue #27: the person ended one of their sign-ins on the security page, or every other one. */
  | "session_ended"
  | "signed_out_elsewhere"
  /** Issue #27: the person granted a site or app access on the consent screen, or removed it (detail: client id). */
  | "app_granted"
  | "app_removed"
  | "admin"
  /**
   * Issue #27: the account's e-mail address changed (the activity list's `email_changed`). Nothing changes an
   * address yet (spec §3: read-only on Edit account); the flow that does records this, with the old address in no field.
   */
  | "email_changed";

export interface AuditContext {
  userId?: string | null;
  ip?: string | null;
  userAgent?: string | null;
  detail?: string | null;
  /** Issue #27: the trusted country header's code (ISO 3166-1 alpha-2), for the person's activity list. */
  country?: string | null;
  /** A sign-in event's method (the detail says it in words), for the metrics; not stored. */
  method?: SignInLabel;
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
    country: context.country?.slice(0, 2) ?? null,
  });
  countEvent(db, event, context.method);
}

/**
 * Sign-ins and lockouts are counted where they are recorded (issue #14: gatehouse_sign_ins_total and
 * gatehouse_blocks_total), so the metrics and the audit trail never tell two stories.
 */
function countEvent(db: Db, event: AuditEvent, method: SignInLabel | undefined): void {
  if (event === "lockout") counts(db).block("lockout");
  else if (event === "session_linked") counts(db).signIn("linked_session", "success");
  else if (event === "sign_in" && method) counts(db).signIn(method, "success");
  else if (event === "sign_in_failed" && method) counts(db).signIn(method, "failure");
}
