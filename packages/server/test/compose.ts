import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { REPO } from "./image-build.ts";

/** The parts of compose.yaml the tests read. */
export interface ComposeService {
  build?: string;
  image?: string;
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  expose?: string[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }> | string[];
  read_only?: boolean;
}

export interface Compose {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

/** compose.yaml as Compose reads it (YAML merge keys and anchors resolved). */
export function readCompose(repo = REPO): Compose {
  return parse(readFileSync(join(repo, "compose.yaml"), "utf8"), { merge: true }) as Compose;
}

/** The gateway nodes: the services built from this repository's Dockerfile. */
export function gatewayNodes(compose: Compose): [string, ComposeService][] {
  return Object.entries(compose.services).filter(([, service]) => service.build === ".");
}

/**
 * Compose's interpolation of `${NAME}`, `${NAME:-default}` and `${NAME:?message}` from `variables` (its .env);
 * a required variable that is missing fails as `docker compose` would.
 */
export function interpolate(value: string, variables: Record<string, string>): string {
  return value.replace(/\$\{(\w+)(?::([?-])([^}]*))?\}/gu, (_match, name: string, kind?: string, rest?: string) => {
    const set = variables[name];
    if (set !== undefined && set !== "") return set;
    if (kind === "?") throw new Error(`compose.yaml: ${name} is required: ${rest}`);
    return kind === "-" ? (rest ?? "") : "";
  });
}

/** The `${NAME…}` variables a value reads from the .env file. */
export function variablesIn(value: string): string[] {
  return [...value.matchAll(/\$\{(\w+)/gu)].map((m) => m[1] as string);
}
