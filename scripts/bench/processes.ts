import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/** Every process the bench started, killed when the bench ends however it ends (they used to linger). */
const children = new Set<ChildProcess>();

function killAll() {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
}
process.on("exit", killAll);
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => {
    killAll();
    process.exit(130);
  });
}

/** Runs a Node script of the repository in its own process (the same Node as the bench). */
export function start(root: string, args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
  children.add(child);
  child.once("exit", () => children.delete(child));
  return child;
}

/** Stops a process and waits until it is gone. */
export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((done) => child.once("exit", done));
  child.kill("SIGTERM");
  const force = setTimeout(() => child.kill("SIGKILL"), 5000);
  await gone;
  clearTimeout(force);
}

/** Runs a script to its end; throws when it fails. */
export async function run(root: string, args: string[], env: Record<string, string>): Promise<void> {
  const child = start(root, args, env);
  const code = await new Promise<number | null>((done) => child.once("exit", done));
  if (code !== 0) throw new Error(`${args.join(" ")} exited with ${code} (see above)`);
}

/** Waits until the URL answers 2xx, or the process died, or 30 s passed. */
export async function ready(url: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`the process for ${url} exited with ${child.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer`);
}

/** Resident memory of a process in bytes (VmRSS of /proc/<pid>/status), or undefined once it has exited. */
export function residentBytes(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB$/mu.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on Linux, whatever the kernel's own tick rate). */
const USER_HZ = 100;

/**
 * CPU time a process has used so far, user and system, in µs (/proc/<pid>/stat), or NaN once it has exited. Per
 * request, it tells what the server itself spends, whatever the load generator on the same cores takes.
 */
export function cpuMicros(pid: number): number {
  try {
    // The fields after the command name, which may hold spaces: utime and stime are the 14th and 15th of the line.
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / USER_HZ;
  } catch {
    return Number.NaN;
  }
}

/** Samples a process's resident memory every `everyMs` and keeps the highest figure seen. */
export function peakSampler(pid: number, everyMs: number) {
  let peak = residentBytes(pid) ?? 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, residentBytes(pid) ?? 0);
  }, everyMs);
  return {
    stop(): number {
      clearInterval(timer);
      return Math.max(peak, residentBytes(pid) ?? 0);
    },
  };
}

/** The machine the figures were measured on. */
export function machine(cores: number): string {
  let model = "unknown CPU";
  try {
    model = /^model name\s*:\s*(.+)$/mu.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1]?.trim() ?? model;
  } catch {}
  return `${cores} cores, ${model}, Node ${process.version}`;
}

/**
 * A port nobody listens on now: fixed ports collided with other servers on the machine, and the bench then measured
 * whatever answered there.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}
