import { MAIL_RETRY } from "@gatehouse/contract";
import type { FastifyBaseLogger } from "fastify";
import { type PassLoop, startPassLoop } from "../jobs/pass-loop.ts";
import { counts } from "../metrics/counts.ts";
import type { Db } from "../store/db.ts";
import { outboxStore } from "../store/outbox.ts";
import { retryDelay } from "./outbox.ts";
import type { MailTransport } from "./transport.ts";

export type MailWorker = PassLoop;

/**
 * How long a claimed message is this worker's alone: far past the slowest SMTP send (10 s to connect, 10 s for the
 * greeting, 20 s of silence at most per step), so no other node sends a message that is still being sent.
 */
export const MAIL_LEASE_MS = 10 * 60_000;
const BATCH = 20;

/**
 * Sends the outbox: each due message is leased at the moment it is taken (so several instances never send one at
 * once), sent, and marked only under that same lease (so a worker whose lease lapsed never reopens or re-marks a
 * message another node sent); a failure schedules a retry with back-off, so a mail-server outage delays mail and
 * loses none. `clock` is for tests.
 */
export function startMailWorker(options: {
  db: Db;
  transport: MailTransport;
  from: string;
  log: FastifyBaseLogger;
  intervalMs?: number;
  clock?: () => number;
}): MailWorker {
  const { db, transport, from, log } = options;
  const clock = options.clock ?? Date.now;

  async function pass(stopped: () => boolean): Promise<void> {
    for (const mail of await outboxStore.due(db, clock(), BATCH)) {
      if (stopped()) return;
      // The time of claiming, not of the batch's read: the messages before this one may have taken a while.
      const claimedAt = clock();
      const lease = claimedAt + MAIL_LEASE_MS;
      if (!(await outboxStore.claim(db, mail.id, claimedAt, lease, mail.attempts))) continue;
      try {
        await transport.send({
          from,
          to: mail.recipient,
          subject: mail.subject,
          text: mail.text_body,
          html: mail.html_body,
        });
        counts(db).mailSent();
        const marked =
          // The farewell mail of a deleted account is the last trace of its address: gone once delivered (issue #5).
          mail.kind === "account_deleted"
            ? await outboxStore.deleteLeased(db, mail.id, lease)
            : // ASVS 14.2.x (sensitive data at rest): once a real server has the mail, its links leave our database.
              // The dev mailbox keeps them, since reading them there is its whole purpose (and it is absent in production).
              await outboxStore.markSent(db, mail.id, lease, clock(), transport.kind === "smtp");
        if (marked) log.info({ mail: mail.id, kind: mail.kind }, "mail sent");
        else log.warn({ mail: mail.id, kind: mail.kind }, "mail sent after its lease ran out; another worker has it");
      } catch (error) {
        const attempts = mail.attempts + 1;
        const failed = attempts >= MAIL_RETRY.maxAttempts;
        const message = (error as Error).message;
        counts(db).mailFailed(failed);
        if (
          !(await outboxStore.markRetry(db, mail.id, lease, attempts, clock() + retryDelay(attempts), message, failed))
        ) {
          log.warn({ mail: mail.id, err: message }, "mail failed after its lease ran out; left as it is");
          continue;
        }
        log[failed ? "error" : "warn"](
          { mail: mail.id, attempts, err: message },
          failed ? "mail given up" : "mail will be retried",
        );
      }
    }
  }

  return startPassLoop({
    pass,
    log,
    failure: "mail pass failed",
    intervalMs: options.intervalMs,
    onStop: () => transport.close(),
  });
}
