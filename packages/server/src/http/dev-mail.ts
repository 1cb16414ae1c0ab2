import type { FastifyInstance } from "fastify";
import type { Config } from "../config.ts";
import { escapeHtml } from "../html.ts";
import type { Db } from "../store/db.ts";
import { outboxStore } from "../store/outbox.ts";
import { pageCsp } from "./page-headers.ts";

/**
 * A mail's page: the pages' CSP, whose img-src also lets in the brands' own origins from the brands file, where
 * each mail's logo is (mail/render.ts; `cloud.localhost` in development). Images only, and only our origins
 * (ASVS 3.4.3): no script, frame or connection more than any page has.
 */
function mailCsp(config: Config) {
  const brandOrigins = [...new Set(Object.values(config.brandOrigins))];
  return { directives: { ...pageCsp(config).directives, "img-src": ["'self'", "data:", ...brandOrigins] } };
}

/**
 * The dev mailbox (ARCHITECTURE.md "mail"): without SMTP_URL, mail stays in the outbox table and is read here.
 * Registered only outside production.
 */
export async function registerDevMail(app: FastifyInstance, db: Db, config: Config): Promise<void> {
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
  const mailPage = { helmet: { contentSecurityPolicy: mailCsp(config) } };
  app.get<{ Params: { id: string } }>("/dev/mail/:id", mailPage, async (request, reply) => {
    const mail = await outboxStore.findById(db, request.params.id);
    if (!mail) return reply.code(404).type("text/plain").send("No such mail.");
    return reply.type("text/html; charset=utf-8").header("cache-control", "no-store").send(mail.html_body);
  });
}
