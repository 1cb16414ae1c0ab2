import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A real HTTP listener on loopback, as a desktop app's redirect target or a site's back-channel logout endpoint. */
export class Listener {
  readonly received: { url: URL; body: string }[] = [];
  private readonly server: Server;
  private waiting: ((request: { url: URL; body: string }) => void)[] = [];
  private constructor(server: Server) {
    this.server = server;
  }

  static async start(answer: (request: IncomingMessage) => number = () => 200): Promise<Listener> {
    let listener: Listener | undefined;
    const server = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => {
        body += chunk.toString("utf8");
      });
      request.on("end", () => {
        const entry = { url: new URL(request.url ?? "/", `http://${request.headers.host}`), body };
        listener?.received.push(entry);
        for (const resolve of listener?.waiting.splice(0) ?? []) resolve(entry);
        response.statusCode = answer(request);
        response.end();
      });
    });
    listener = new Listener(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return listener;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** The next request, or one already received since the count given. */
  next(after = this.received.length): Promise<{ url: URL; body: string }> {
    const already = this.received[after];
    if (already) return Promise.resolve(already);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
