/**
 * The soak's mail server: a real SMTP server on loopback (smtp-server, as the tests' packages/server/test/smtp.ts)
 * that counts each message by recipient and keeps nothing else, so thousands of activation mails cost it no
 * memory.
 */
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export interface Mailbox {
  readonly url: string;
  /** Messages received, by recipient address (lower case). */
  readonly byRecipient: ReadonlyMap<string, number>;
  /** Messages received in all. */
  messages(): number;
  close(): Promise<void>;
}

export async function startMailbox(): Promise<Mailbox> {
  const byRecipient = new Map<string, number>();
  let messages = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, done) {
      stream.resume();
      stream.on("end", () => {
        messages += 1;
        for (const { address } of session.envelope.rcptTo) {
          const key = address.toLowerCase();
          byRecipient.set(key, (byRecipient.get(key) ?? 0) + 1);
        }
        done();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = (server as unknown as { server: { address(): AddressInfo } }).server.address();
  return {
    url: `smtp://127.0.0.1:${port}`,
    byRecipient,
    messages: () => messages,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
