import { randomUUID } from "node:crypto";
import { MAIL_RETRY } from "@gatehouse/contract";
import { backOff } from "../jobs/back-off.ts";
import { queueJob } from "../jobs/worker.ts";
import { counts } from "../metrics/counts.ts";
import type { Db } from "../store/db.ts";
import { OUTBOX_HELD_BY_QUEUE, outboxStore } from "../store/outbox.ts";
import type { UserRow } from "../store/schema.ts";
import type { Recipient } from "./greeting.ts";
import type { MailKind } from "./kinds.ts";
import { type MailSite, mailLanguage, mailLink } from "./links.ts";
import { type MailVars, type RenderedMail, renderMail } from "./render.ts";
import { MAIL_JOB, type MailJob } from "./worker.ts";

/**
 * Puts a message in the outbox and its "mail" job in the queue (issue #28). Call it inside the transaction that
 * makes the change the mail tells of, so there is never an account without its activation mail, nor a mail about
 * something that did not happen; kick the worker (`services.mail.kick()`) after the commit so it leaves at once.
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
    claimed_until: OUTBOX_HELD_BY_QUEUE,
    last_error: null,
    created_at: now,
    sent_at: null,
  });
  await queueJob(db, MAIL_JOB, { outboxId: id } satisfies MailJob, now);
  // Counted as queued here, in the change's transaction: one that rolls back afterwards (rare) is counted anyway.
  counts(db).mailQueued(mail.kind);
  return id;
}

/** Exponential back-off: 10 s, 20 s, 40 s … capped at an hour. */
export function retryDelay(attempts: number): number {
  return backOff(attempts, MAIL_RETRY.firstDelayMs);
}

/** The names a mail may greet a user by, and whether the user has proven the address (greeting.ts). */
export function recipientOf(user: UserRow): Recipient {
  return { firstName: user.first_name, lastName: user.last_name, addressVerified: user.status !== "pending" };
}

/**
 * Renders a mail for a user in the language of the page the person acted on (the account's where there was no
 * page: the admin CLI), in the look of the brand they acted on, with its link on that brand's site (`path` is a route of ours, e.g. `routeUrl("PASSWORD_RESET", { code })`), and queues it.
 */
export async function queueUserMail(
  db: Db,
  user: UserRow,
  kind: MailKind,
  path: string,
  site: MailSite,
  now = Date.now(),
  vars?: MailVars,
): Promise<string> {
  const language = mailLanguage(site, user.language);
  const mail = renderMail({
    kind,
    language,
    site,
    link: mailLink(site, path, language),
    recipient: recipientOf(user),
    ...(vars ? { vars } : {}),
  });
  return queueMail(db, { userId: user.id, to: user.email, kind, ...mail }, now);
}
