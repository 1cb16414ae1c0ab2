import { MAIL_RETRY } from "@gatehouse/contract";
import type { FastifyBaseLogger } from "fastify";
import type { Db } from "../store/db.ts";
import { outboxStore } from "../store/outbox.ts";
import { retryDelay } from "./outbox.ts";
import type { MailTransport } from "./transport.ts";

export interface MailWorker {
  /** Look for due mail now (after queueing some). */
  kick(): void;
  /** One pass over due mail; resolves when it is done. */
  runOnce(): Promise<void>;
  stop(): Promise<void>;
}

const LEASE_MS = 60_000;
const BATCH = 20;

/**
 * Sends the outbox: due messages are leased (so several instances never send one twice), sent, and marked;
 * a failure schedules a retry with back-off, so a mail-server outage delays mail and loses none.
 */
export function startMailWorker(options: {
  db: Db;
  transport: MailTransport;
  from: string;
  log: FastifyBaseLogger;
  intervalMs?: number;
}): MailWorker {
  const { db, transport, from, log } = options;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  async function pass(): Promise<void> {
    const now = Date.now();
    for (const mail of await outboxStore.due(db, now, BATCH)) {
      if (stopped) return;
      if (!(await outboxStore.claim(db, mail.id, now, now + LEASE_MS))) continue;
      try {
        await transport.send({
          from,
          to: mail.recipient,
          subject: mail.subject,
          text: mail.text_body,
          html: mail.html_body,
        });
        // The farewell mail of a deleted account is the last trace of its address: gone once delivered (issue #5).
        if (mail.kind === "account_deleted") await outboxStore.delete(db, mail.id);
        // ASVS 14.2.x (sensitive data at rest): once a real server has the mail, its links leave our database.
        // The dev mailbox keeps them, since reading them there is its whole purpose (and it is absent in production).
        else await outboxStore.markSent(db, mail.id, Date.now(), transport.kind === "smtp");
        log.info({ mail: mail.id, kind: mail.kind }, "mail sent");
      } catch (error) {
        const attempts = mail.attempts + 1;
        const failed = attempts >= MAIL_RETRY.maxAttempts;
        await outboxStore.markRetry(
          db,
          mail.id,
          attempts,
          Date.now() + retryDelay(attempts),
          (error as Error).message,
          failed,
        );
        log[failed ? "error" : "warn"](
          { mail: mail.id, attempts, err: (error as Error).message },
          failed ? "mail given up" : "mail will be retried",
        );
      }
    }
  }

  function runOnce(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await pass().catch((err) => log.error({ err }, "mail pass failed"));
      } while (again && !stopped);
    })().finally(() => {
      running = undefined;
    });
    return running;
  }

  const timer = setInterval(() => void runOnce(), options.intervalMs ?? 5_000);
  timer.unref();
  return {
    kick: () => void runOnce(),
    runOnce,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
      transport.close();
    },
  };
}
