import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A stand-in for the siteverify call of Turnstile and reCAPTCHA on loopback (this machine reaches no third
 * party): it records every form it is sent and answers `success` as `accept` decides.
 */
export class FakeSiteverify {
  readonly seen: URLSearchParams[] = [];
  url = "";
  private server: Server | undefined;
  private readonly accept: (form: URLSearchParams) => boolean;

  constructor(accept: (form: URLSearchParams) => boolean) {
    this.accept = accept;
  }

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk) => (body += chunk));
      request.on("end", () => {
        const form = new URLSearchParams(body);
        this.seen.push(form);
        const success = this.accept(form);
        response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ success }));
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/siteverify`;
    return this;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
