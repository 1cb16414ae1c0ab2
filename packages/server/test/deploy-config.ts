import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO } from "./image-build.ts";

/** What the tests read from the load balancer's configuration (deploy/haproxy/haproxy.cfg). */
export interface BalancerConfig {
  /** The front end's port. */
  bindPort: number;
  /** The path of the back end's health check. */
  checkPath: string;
  /** The back end's servers: their host name (a compose service) and port. */
  servers: { host: string; port: number }[];
  /** Every directive of the front end, one a line, without comments. */
  frontend: string[];
}

/** HAProxy's configuration: sections start at the line's beginning, their directives are indented. */
function sections(text: string): Map<string, string[]> {
  const result = new Map<string, string[]>();
  let current: string[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.replace(/#.*$/u, "").trimEnd();
    if (!line.trim()) continue;
    if (/^\S/u.test(line)) {
      current = [];
      result.set(line.trim(), current);
    } else current.push(line.trim());
  }
  return result;
}

export function balancerConfig(repo = REPO): BalancerConfig {
  const parsed = sections(readFileSync(join(repo, "deploy/haproxy/haproxy.cfg"), "utf8"));
  const section = (kind: string) => [...parsed].find(([name]) => name.startsWith(`${kind} `))?.[1] ?? [];
  const frontend = section("frontend");
  const backend = section("backend");
  const bind = frontend.find((line) => line.startsWith("bind "));
  const check = backend.find((line) => line.startsWith("http-check send "));
  return {
    bindPort: Number(/:(\d+)/u.exec(bind ?? "")?.[1]),
    checkPath: /\buri (\S+)/u.exec(check ?? "")?.[1] ?? "",
    servers: backend
      .filter((line) => line.startsWith("server "))
      .map((line) => {
        const [, host, port] = /^server \S+ ([\w.-]+):(\d+)/u.exec(line) ?? [];
        return { host: host ?? "", port: Number(port) };
      }),
    frontend,
  };
}
