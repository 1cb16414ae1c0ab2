import { readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { expect, vi } from "vitest";
import { type Service, startService } from "./global.ts";

const PRELOAD = resolve(import.meta.dirname, "fake-clock.ts");
let clocks = 0;

/** A file's text, or undefined while it does not exist. */
function readIfThere(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

/** A Gatehouse whose wall clock a test can move forward (`e2e/fake-clock.ts`), with the environment given. */
export async function startServiceWithClock(
  env: Record<string, string> = {},
): Promise<{ service: Service; advance: (ms: number) => Promise<void> }> {
  const file = join(tmpdir(), `gatehouse-clock-${process.pid}-${++clocks}`);
  writeFileSync(file, "0");
  const service = await startService({
    ...env,
    FAKE_CLOCK_FILE: file,
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import ${PRELOAD}`.trim(),
  });
  let offset = 0;
  const advance = async (ms: number) => {
    offset += ms;
    writeFileSync(file, String(offset));
    if (service.pid === undefined) throw new Error("the service has no process id");
    process.kill(service.pid, "SIGUSR2");
    // The signal is handled on the server's next turn of its event loop: wait until its clock says so.
    await vi.waitFor(() => expect(readIfThere(`${file}.seen`)).toBe(String(offset)), { interval: 10 });
  };
  return { service, advance };
}
