import type { FastifyInstance } from "fastify";
import { escapeHtml } from "../html.ts";
import type { Db } from "../store/db.ts";
import { outboxStore } from "../store/outbox.ts";

/**
 * The dev mailbox (ARCHITECTURE.md "mail"): without SMTP_URL, mail stays in the outbox table and is read here.
 * Registered only outside production.
 */
export async function registerDevMail(app: FastifyInstance, db: Db): Promise<void> {
  app.get("/dev/mail", async (_request, reply) => {
    const rows = await outboxStore.list(db, 200);
    const items = rows
      .map(
        (m) =>
          `<tr><td>${new Date(m.created_at).toISOString()}</td><td>${escapeHtml(m.recipient)}</td><td><a href="/dev/mail/${m.id}">${escapeHtml(m.subject)}</a></td><td>${m.status}</td></tr>`,
      )
      .join("");
    return reply
      .type("text/html; charset=utf-8")
      .header("cache-control", "no-store")
      .send(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Dev mailbox</title></head><body style="font-family:system-ui;margin:2rem"><h1>Dev mailbox</h1><p>Mail Gatehouse sent, newest first. Not served in production.</p><table cellpadding="6"><thead><tr><th>Queued</th><th>To</th><th>Subject</th><th>Status</th></tr></thead><tbody>${items}</tbody></table></body></html>`,
      );
  });
  app.get<{ Params: { id: string } }>("/dev/mail/:id", async (request, reply) => {
    const mail = await outboxStore.findById(db, request.params.id);
    if (!mail) return reply.code(404).type("text/plain").send("No such mail.");
    return reply.type("text/html; charset=utf-8").header("cache-control", "no-store").send(mail.html_body);
  });
}
