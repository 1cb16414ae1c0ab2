import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  to: string[];
  raw: string;
  /** The decoded text of all parts (quoted-printable undone), good enough to find links and words in. */
  text: string;
}

/** Undoes quoted-printable soft line breaks and =XX escapes (RFC 2045), as mail clients do. */
function decodeQuotedPrintable(raw: string): string {
  const joined = raw.replace(/=\r?\n/gu, "");
  const bytes: number[] = [];
  for (let i = 0; i < joined.length; i++) {
    const match = /^=([0-9A-F]{2})/u.exec(joined.slice(i, i + 3));
    if (match) {
      bytes.push(Number.parseInt(match[1] as string, 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(joined[i] as string, "utf8"));
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

/** Which mail `TestSmtp.waitFor` waits for. */
export interface MailWanted {
  nth?: number | "last";
  having?: (mail: ReceivedMail) => boolean;
  timeoutMs?: number;
}

/**
 * A real SMTP server on loopback that keeps what it receives; it can be stopped and started to test outages, and can
 * hold every message's final answer, as a slow mail server does.
 */
export class TestSmtp {
  readonly received: ReceivedMail[] = [];
  private server: SMTPServer | undefined;
  port = 0;

  private readonly onMail: ((mail: ReceivedMail) => void) | undefined;
  private holding: boolean;
  private readonly held: Array<{ session: string; accept: () => void }> = [];
  private readonly closed = new Set<string>();
  /** Those waiting for a mail (waitFor), told of each arrival. */
  private readonly arrivals = new Set<() => void>();

  /**
   * `onMail`: told of each mail as it arrives (the browser suite's log scan keeps them, e2e/run.ts). `holding`: each
   * message's final answer waits for `release()`; until then it is not received.
   */
  constructor(options: { onMail?: (mail: ReceivedMail) => void; holding?: boolean } = {}) {
    this.onMail = options.onMail;
    this.holding = options.holding ?? false;
  }

  async start(port = 0): Promise<this> {
    const { closed } = this;
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS", "AUTH"],
      logger: false,
      onData: (stream, session, done) => {
        const chunks: Buffer[] = [];
        stream.on("data", (c: Buffer) => chunks.push(c));
        stream.on("end", () => {
          const raw = Buffer.concat(chunks).toString("utf8");
          const mail = { to: session.envelope.rcptTo.map((r) => r.address), raw, text: decodeQuotedPrintable(raw) };
          const accept = () => {
            this.received.push(mail);
            this.onMail?.(mail);
            for (const check of [...this.arrivals]) check();
            done();
          };
          if (!this.holding) accept();
          // A held message counts only if its sender is still there to hear the answer: a node killed while waiting
          // never learned it was sent, so it counts as not sent (and rightly goes out again).
          else this.held.push({ session: session.id, accept: () => closed.has(session.id) || accept() });
        });
      },
      onClose: (session) => closed.add(session.id),
    });
    await new Promise<void>((resolve, reject) => {
      this.server?.once("error", reject);
      this.server?.listen(port, "127.0.0.1", () => resolve());
    });
    this.port = (
      (this.server as unknown as { server: { address(): AddressInfo } }).server.address() as AddressInfo
    ).port;
    return this;
  }

  /** Messages whose answer is held (`holding`). */
  get heldCount(): number {
    return this.held.length;
  }

  /** Held messages whose sender is still connected (a killed node's connection closes). */
  get heldOpenCount(): number {
    return this.held.filter((message) => !this.closed.has(message.session)).length;
  }

  /** Answers every held message, and each later one at once. */
  release(): void {
    this.holding = false;
    for (const message of this.held.splice(0)) message.accept();
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  /**
   * The one mail waiter of the server tests: the `nth` mail (1-based, default the first; "last" for the latest) to
   * `address` among those `having` accepts, as soon as it has arrived (each arrival is told to the waiters; nothing
   * polls), or an error naming it after `timeoutMs`.
   */
  waitFor(address: string, options: MailWanted | number = {}): Promise<ReceivedMail> {
    const {
      nth = 1,
      having = () => true,
      timeoutMs = 15_000,
    } = typeof options === "number" ? { timeoutMs: options } : options;
    const find = () => {
      const mails = this.received.filter((mail) => mail.to.includes(address) && having(mail));
      return nth === "last" ? mails.at(-1) : mails[nth - 1];
    };
    return new Promise((resolve, reject) => {
      const check = () => {
        const mail = find();
        if (!mail) return;
        clearTimeout(timer);
        this.arrivals.delete(check);
        resolve(mail);
      };
      const timer = setTimeout(() => {
        this.arrivals.delete(check);
        reject(new Error(`mail #${nth} to ${address} did not arrive within ${timeoutMs} ms`));
      }, timeoutMs);
      this.arrivals.add(check);
      check();
    });
  }
}

/** The first link to the given path in a mail. */
export function linkIn(mail: ReceivedMail, path: string): URL {
  const match = new RegExp(`https?://[^\\s"<>]*${path.replace(/[/.]/gu, "\\$&")}\\?[^\\s"<>]+`, "u").exec(mail.text);
  if (!match) throw new Error(`no ${path} link in:\n${mail.text.slice(0, 2000)}`);
  return new URL(match[0].replaceAll("&amp;", "&"));
}
