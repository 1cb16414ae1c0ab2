/**
 * The chaos soak's cluster (`npm run soak -- --chaos`): gateway nodes on one database, each its own process and
 * port, whose resident memory is read per process; and the faults: a node killed with SIGKILL and started again
 * on its port, PostgreSQL stopped and started again on its data folder and port.
 */
import type { ChildProcess } from "node:child_process";
import { type GatewayEnv, ROOT, startGateway, startNodeFlags } from "../bench/gateway.ts";
import { ready, residentBytes, start, stop } from "../bench/processes.ts";
import type { Outage } from "./verdict.ts";

/** One process of a node: a node killed and restarted has several. Times are performance.now(). */
export interface ProcessRecord {
  pid: number;
  startedAt: number;
  endedAt?: number;
  readings: { at: number; bytes: number }[];
}

export interface GatewayNode {
  index: number;
  env: GatewayEnv;
  base: string;
  child: ChildProcess;
  processes: ProcessRecord[];
}

/** How long a killed node stays down, and PostgreSQL stopped, before they start again ("a few seconds"). */
export const DOWN_MS = 5_000;

export class Cluster {
  readonly nodes: GatewayNode[] = [];
  readonly outages: Outage[] = [];
  /** What happened when, for the report (ms from `origin`). */
  readonly log: string[] = [];
  /** performance.now() at the start of the load: the report's times count from it. */
  origin = performance.now();
  private sampler?: NodeJS.Timeout;

  /** Starts one node per environment (each its own port), one after the other, as `npm start` runs it. */
  static async start(envs: GatewayEnv[]): Promise<Cluster> {
    const cluster = new Cluster();
    for (const [index, env] of envs.entries()) {
      const child = await startGateway(env);
      cluster.nodes.push({
        index,
        env,
        base: env.PUBLIC_URL,
        child,
        processes: [{ pid: child.pid as number, startedAt: performance.now(), readings: [] }],
      });
    }
    return cluster;
  }

  /** Reads every running node's RSS every `everyMs`. */
  sample(everyMs: number): void {
    this.sampler = setInterval(() => {
      for (const node of this.nodes) {
        const process = node.processes.at(-1) as ProcessRecord;
        if (process.endedAt !== undefined) continue;
        const bytes = residentBytes(process.pid);
        if (bytes !== undefined) process.readings.push({ at: performance.now(), bytes });
      }
    }, everyMs);
  }

  stopSampling(): void {
    clearInterval(this.sampler);
  }

  /** SIGKILL to the node's process (no shutdown of any kind), then, after DOWN_MS, a new one on the same port. */
  async kill(index: number): Promise<void> {
    const node = this.nodes[index] as GatewayNode;
    const killedAt = performance.now();
    const gone = new Promise((done) => node.child.once("exit", done));
    node.child.kill("SIGKILL");
    await gone;
    (node.processes.at(-1) as ProcessRecord).endedAt = performance.now();
    this.note(killedAt, `node ${index + 1} killed with SIGKILL (pid ${node.child.pid})`);
    await new Promise((r) => setTimeout(r, DOWN_MS));
    const restartedAt = performance.now();
    const child = start(ROOT, [...startNodeFlags(), "scripts/start.ts"], node.env);
    node.processes.push({ pid: child.pid as number, startedAt: restartedAt, readings: [] });
    node.child = child;
    await ready(`${node.base}/readyz`, child);
    const back = performance.now();
    this.outages.push({ kind: "node", node: index, fromMs: killedAt, toMs: back });
    this.note(
      back,
      `node ${index + 1} restarted on its port (pid ${child.pid}), ready after ${secs(back - restartedAt)} s`,
    );
  }

  /**
   * PostgreSQL's fast shutdown (every connection ends with 57P01), DOWN_MS stopped, a start on the same data folder
   * and port; the outage lasts until every node's /readyz answers again.
   */
  async restartDatabase(database: { pause(): Promise<void>; resume(): Promise<void> }): Promise<void> {
    const stoppedAt = performance.now();
    await database.pause();
    this.note(performance.now(), `PostgreSQL stopped (fast shutdown, took ${secs(performance.now() - stoppedAt)} s)`);
    await new Promise((r) => setTimeout(r, DOWN_MS));
    await database.resume();
    this.note(performance.now(), "PostgreSQL started again on its data folder and port");
    await Promise.all(this.nodes.map((node) => ready(`${node.base}/readyz`, node.child)));
    const back = performance.now();
    this.outages.push({ kind: "database", fromMs: stoppedAt, toMs: back });
    this.note(back, "every node's /readyz answers 200 again");
  }

  /** Stops every node; true when each was still running (none died by itself). */
  async stop(): Promise<boolean> {
    this.stopSampling();
    let alive = true;
    for (const node of this.nodes) {
      alive &&= node.child.exitCode === null && node.child.signalCode === null;
      (node.processes.at(-1) as ProcessRecord).endedAt ??= performance.now();
      await stop(node.child);
    }
    return alive;
  }

  private note(at: number, text: string): void {
    const line = `[${clock((at - this.origin) / 1000)}] chaos: ${text}`;
    this.log.push(line);
    console.log(line);
  }
}

const secs = (ms: number) => (ms / 1000).toFixed(1);

export const clock = (seconds: number) =>
  `${seconds < 0 ? "-" : ""}${Math.floor(Math.abs(seconds) / 60)}:${String(Math.floor(Math.abs(seconds) % 60)).padStart(2, "0")}`;
