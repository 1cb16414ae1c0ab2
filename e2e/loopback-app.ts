import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A desktop app (or a site) behind a loopback redirect: a real listener that records what it receives. */
export interface LoopbackApp {
  origin: string;
  /** Every request it received, in order. */
  received: URL[];
  /** The last request it received on a path (the browser also asks it for a favicon). */
  lastTo(path: string): URL | undefined;
  close(): Promise<void>;
}

export async function startLoopbackApp(): Promise<LoopbackApp> {
  const received: URL[] = [];
  let origin = "";
  const server = createServer((request, response) => {
    received.push(new URL(request.url ?? "/", origin));
    response.setHeader("content-type", "text/html; charset=utf-8");
    response.end("<!doctype html><title>App</title><p>Signed in</p>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    received,
    lastTo: (path) => received.filter((url) => url.pathname === path).at(-1),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A clients file (CLIENTS_FILE) of these clients, in a fresh temporary folder. */
export function clientsFileOf(clients: readonly Record<string, unknown>[]): string {
  const file = join(mkdtempSync(join(tmpdir(), "gatehouse-clients-")), "clients.json");
  writeFileSync(file, JSON.stringify({ clients }));
  return file;
}
