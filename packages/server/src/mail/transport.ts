import nodemailer from "nodemailer";

export interface OutgoingMail {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface MailTransport {
  readonly kind: "smtp" | "dev";
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

/**
 * SMTP through nodemailer when SMTP_URL is set; otherwise the dev mailbox, where "sending" leaves the message in
 * the outbox table for /dev/mail and `npm run admin -- mail:list` to show.
 */
export function createTransport(smtpUrl: string | undefined): MailTransport {
  if (!smtpUrl) return { kind: "dev", send: async () => {}, close: () => {} };
  const transporter = nodemailer.createTransport(smtpUrl, {
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  } as never);
  return {
    kind: "smtp",
    send: async (mail) => {
      await transporter.sendMail(mail);
    },
    close: () => transporter.close(),
  };
}
