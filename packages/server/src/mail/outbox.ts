import { randomUUID } from "node:crypto";
import { MAIL_RETRY } from "@gatehouse/contract";
import type { Db } from "../store/db.ts";
import { outboxStore } from "../store/outbox.ts";
import type { UserRow } from "../store/schema.ts";
import { type MailKind, type RenderedMail, renderMail } from "./render.ts";

/**
 * Puts a message in the outbox. Call it inside the transaction that makes the change the mail tells of, so
 * there is never an account without its activation mail, nor a mail about something that did not happen.
 */
export async function queueMail(
  db: Db,
  mail: { userId: string | null; to: string; kind: string } & RenderedMail,
  now = Date.now(),
): Promise<string> {
  const id = randomUUID();
  await outboxStore.insert(db, {
    id,
    user_id: mail.userId,
    recipient: mail.to,
    kind: mail.kind,
    subject: mail.subject,
    text_body: mail.text,
    html_body: mail.html,
    status: "pending",
    attempts: 0,
    next_attempt_at: now,
    claimed_until: null,
    last_error: null,
    created_at: now,
    sent_at: null,
  });
  return id;
}

/** Exponential back-off: 10 s, 20 s, 40 s … capped at an hour. */
export function retryDelay(attempts: number): number {
  return Math.min(MAIL_RETRY.firstDelayMs * 2 ** Math.max(0, attempts - 1), MAIL_RETRY.maxDelayMs);
}

/** Renders a mail for a user, in the language and brand the account was made with, and queues it. */
export async function queueUserMail(
  db: Db,
  user: UserRow,
  kind: MailKind,
  link: string,
  publicUrl: URL,
  now = Date.now(),
): Promise<string> {
  const mail = renderMail({
    kind,
    language: user.language,
    brand: user.brand,
    publicUrl,
    link,
    name: user.first_name || user.email,
  });
  return queueMail(db, { userId: user.id, to: user.email, kind, ...mail }, now);
}
