import { randomUUID } from "node:crypto";
import { MAIL_RETRY } from "@gatehouse/contract";
import type { Db } from "../store/db.ts";
import { outboxStore } from "../store/outbox.ts";
import type { RenderedMail } from "./render.ts";

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
