import { type AddressInfo, createServer } from "node:net";

/**
 * A loopback port that is free right now, chosen by the kernel. A random guess once collided with a browser's
 * outgoing connection (the guesses overlapped the kernel's ephemeral range); callers still retry if another
 * process takes the port before they bind it.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
