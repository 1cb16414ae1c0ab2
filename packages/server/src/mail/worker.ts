import type { JobKind } from "../jobs/worker.ts";
import { counts } from "../metrics/counts.ts";
import type { Db } from "../store/db.ts";
import { outboxStore } from "../store/outbox.ts";
import type { MailTransport } from "./transport.ts";

/** Issue #28: mail is one kind of the one durable queue (jobs/worker.ts); its payload names the outbox message. */
export const MAIL_JOB = "mail";

export interface MailJob {
  outboxId: string;
}

/**
 * The "mail" kind: sends the outbox message its job names. The queue's worker leases the job (renewing the lease
 * through the SMTP exchange) and marks the message in the transaction that finishes the job under its lease, so a
 * worker whose lease was lost never re-marks a message another node sent. A message already gone (its account was
 * deleted, which takes its queued mail) or no longer waiting is done without effect.
 */
export function mailJob(options: { db: Db; transport: MailTransport; from: string }): JobKind {
  const { db, transport, from } = options;
  return {
    run: async (payload) => {
      const mail = await outboxStore.findById(db, (payload as MailJob).outboxId);
      if (mail?.status !== "pending") return;
      await transport.send({
        from,
        to: mail.recipient,
        subject: mail.subject,
        text: mail.text_body,
        html: mail.html_body,
      });
      counts(db).mailSent();
    },
    done: async (trx, payload, at) => {
      const id = (payload as MailJob).outboxId;
      const mail = await outboxStore.findById(trx, id);
      if (mail?.status !== "pending") return;
      // The farewell mail of a deleted account is the last trace of its address: gone once delivered (issue #5).
      if (mail.kind === "account_deleted") await outboxStore.delete(trx, id);
      // ASVS 14.2.x (sensitive data at rest): once a real server has the mail, its links leave our database.
      // The dev mailbox keeps them, since reading them there is its whole purpose (and it is absent in production).
      else await outboxStore.markSent(trx, id, at, transport.kind === "smtp");
    },
    failed: async (trx, payload, outcome) => {
      counts(db).mailFailed(outcome.gaveUp);
      await outboxStore.markRetry(trx, (payload as MailJob).outboxId, outcome);
    },
  };
}
