import { readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { connect } from "node:net";
import { join } from "node:path";
import type { From } from "dockerfile-ast";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadConfig } from "../src/config.ts";
import { type ComposeService, gatewayNodes, interpolate, readCompose, variablesIn } from "./compose.ts";
import { balancerConfig } from "./deploy-config.ts";
import { startServer } from "./harness.ts";
import { dockerfileInstructions, dockerignore, execForm, healthcheckOf, REPO } from "./image-build.ts";

/**
 * The deployment files agree with each other and with the server (issue #14): the Dockerfile, deploy/image-steps.sh,
 * .dockerignore, compose.yaml and the balancer's configuration. image.test.ts carries the image's steps out; this
 * file checks what only a container runtime would otherwise find out, in a second.
 */

const read = (path: string) => readFileSync(join(REPO, path), "utf8");
const json = (path: string) => JSON.parse(read(path));
const instructions = dockerfileInstructions();
const keywords = (keyword: string) => instructions.filter((i) => i.getKeyword() === keyword);
/** The last stage's instructions: what the image is. */
const finalStage = instructions.slice(instructions.lastIndexOf(keywords("FROM").at(-1) as (typeof instructions)[0]));
const steps = read("deploy/image-steps.sh");
const compose = readCompose();
const nodes = gatewayNodes(compose);
const balancer = balancerConfig();
/** compose.yaml's variables, as an operator's .env gives them. */
const dotEnv = { SESSION_SECRET: "x".repeat(48), POSTGRES_PASSWORD: "compose-password" };
const nodeEnv = (service: ComposeService) =>
  Object.fromEntries(Object.entries(service.environment ?? {}).map(([k, v]) => [k, interpolate(String(v), dotEnv)]));
const service = (name: string) => compose.services[name] as ComposeService;

describe("Dockerfile", () => {
  it("builds on the official Node slim image at the version the tests run on, in several stages", () => {
    const node = json("package-lock.json").packages["node_modules/node"].version as string;
    const froms = keywords("FROM") as From[];
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const from of froms) {
      expect(from.getImageName()).toBe("node");
      expect(from.getImageTag()).toMatch(new RegExp(`^${node.replaceAll(".", "\\.")}-([a-z]+-)?slim$`, "u"));
    }
  });

  it("runs only steps of deploy/image-steps.sh, each one the script knows", () => {
    const known = [...steps.matchAll(/^ {2}([a-z-]+)\)$/gmu)].map((m) => m[1]);
    const runs = keywords("RUN").map((run) => run.getArguments().map((a) => a.getValue()));
    expect(runs.length).toBeGreaterThan(0);
    for (const [script, step, ...rest] of runs) {
      expect(script).toBe("deploy/image-steps.sh");
      expect(known).toContain(step);
      expect(rest).toEqual([]);
    }
  });

  it("runs the image as the non-root user the script fills the compile cache for, in production", () => {
    const user = finalStage.find((i) => i.getKeyword() === "USER")?.getArgumentsContent();
    const [uid] = (user ?? "").split(":");
    expect(Number(uid)).toBeGreaterThan(0);
    expect(steps).toContain(`APP_UID=${uid}\n`);
    const env = finalStage.filter((i) => i.getKeyword() === "ENV").map((i) => i.getArgumentsContent());
    expect(env).toContain("NODE_ENV=production");
  });

  it("starts with `npm start`'s Node flags, exposes the nodes' port, and checks liveness on /healthz", () => {
    const start = json("package.json").scripts.start as string;
    const flags = start.match(/--max-[\w-]+=\d+/gu);
    expect(flags?.length).toBeGreaterThan(0);
    expect(steps).toContain(`NODE_FLAGS="${flags?.join(" ")}"`);
    expect(execForm(finalStage.find((i) => i.getKeyword() === "CMD") as (typeof instructions)[0])).toEqual([
      "deploy/image-steps.sh",
      "start",
    ]);
    const healthcheck = healthcheckOf(
      finalStage.find((i) => i.getKeyword() === "HEALTHCHECK") as (typeof instructions)[0],
    );
    expect(healthcheck.command).toEqual(["deploy/image-steps.sh", "health"]);
    expect(healthcheck.options).toMatchObject({ interval: expect.any(String), timeout: expect.any(String) });
    expect(steps).toMatch(/health\)\n[^;]*\/healthz/u);
    const exposed = finalStage.filter((i) => i.getKeyword() === "EXPOSE").flatMap((i) => i.getArguments());
    expect(exposed.map((a) => a.getValue())).toEqual(["8080"]);
  });
});

describe(".dockerignore", () => {
  const ignored = dockerignore().add(read(".dockerignore").split("\n"));
  it.each([
    "node_modules/fastify/package.json",
    "packages/web/node_modules/.vite/x",
    "packages/web/dist/index.html",
    "data/gatehouse.db",
    "data/session-secret",
    ".git/HEAD",
    ".env",
    "e2e/screenshots/login.png",
    ".cache/node-compile/x",
    "gatehouse.db-wal",
  ])("keeps %s out of the build context", (path) => {
    expect(ignored.ignores(path)).toBe(true);
  });
  it.each([
    "package-lock.json",
    "tsconfig.base.json",
    "deploy/image-steps.sh",
    "packages/server/src/main.ts",
    "packages/server/config/brands.json",
    "packages/contract/src/i18n/en.json",
    "packages/web/index.html",
  ])("sends %s", (path) => {
    expect(ignored.ignores(path)).toBe(false);
  });
});

describe("compose.yaml", () => {
  it("runs two gateway nodes of this image with the same configuration, one secret and PostgreSQL", () => {
    expect(nodes.map(([name]) => name)).toEqual(["gatehouse-1", "gatehouse-2"]);
    const [[, first], [, second]] = nodes as [[string, ComposeService], [string, ComposeService]];
    expect(second).toEqual(first);
    const env = first.environment ?? {};
    // Required from .env, never a default written here (a default would end up in someone's production).
    expect(env.SESSION_SECRET).toMatch(/^\$\{SESSION_SECRET:\?/u);
    expect(env).toMatchObject({ NODE_ENV: "production", PUBLIC_URL: "http://localhost:8080", TRUST_PROXY: "true" });
    expect(first.read_only).toBe(true);
    expect(first.ports ?? []).toEqual([]);
    expect(first.expose).toEqual(["8080"]);
    expect(first.depends_on).toMatchObject({ postgres: { condition: "service_healthy" } });
  });

  it("gives the nodes a configuration the gateway accepts, each variable documented in docs/configuration.md", () => {
    const [[, node]] = nodes as [[string, ComposeService]];
    expect(() => loadConfig(nodeEnv(node))).not.toThrow();
    const reference = read("docs/configuration.md");
    for (const name of Object.keys(node.environment ?? {})) expect(reference).toContain(`\`${name}\``);
  });

  it("points the nodes at its PostgreSQL 17 (health-checked, on a volume) and its mail catcher", () => {
    const [[, node]] = nodes as [[string, ComposeService]];
    const postgres = service("postgres");
    expect(postgres.image).toMatch(/^postgres:17\b/u);
    expect(postgres.healthcheck?.test.join(" ")).toContain("pg_isready");
    const [volume] = (postgres.volumes ?? [""])[0]?.split(":") ?? [];
    expect(postgres.volumes?.[0]).toMatch(/:\/var\/lib\/postgresql\/data$/u);
    expect(compose.volumes).toHaveProperty(volume as string);
    const pg = postgres.environment ?? {};
    const url = new URL(nodeEnv(node).DATABASE_URL as string);
    expect(url.hostname).toBe("postgres");
    expect(decodeURIComponent(url.username)).toBe(pg.POSTGRES_USER);
    expect(url.pathname).toBe(`/${pg.POSTGRES_DB}`);
    // One password, from one variable of .env, for the database and the nodes.
    expect(variablesIn(String(node.environment?.DATABASE_URL))).toEqual(variablesIn(String(pg.POSTGRES_PASSWORD)));
    expect(service("mailpit").image).toMatch(/^axllent\/mailpit:v\d/u);
    expect(new URL(nodeEnv(node).SMTP_URL as string).host).toBe("mailpit:1025");
  });

  it("publishes the balancer alone, on PUBLIC_URL's port, with its configuration from deploy/haproxy", () => {
    const [[, node]] = nodes as [[string, ComposeService]];
    const publicUrl = new URL(nodeEnv(node).PUBLIC_URL as string);
    const lb = service("balancer");
    expect(lb.ports).toEqual([`127.0.0.1:${publicUrl.port}:${balancer.bindPort}`]);
    expect(lb.volumes).toContain("./deploy/haproxy:/usr/local/etc/haproxy:ro");
    const published = Object.entries(compose.services).filter(([, s]) => (s.ports ?? []).length > 0);
    expect(published.map(([name]) => name).sort()).toEqual(["balancer", "mailpit"]);
  });
});

describe("the balancer (deploy/haproxy/haproxy.cfg)", () => {
  it("sends to both nodes on their port and checks each on /readyz", () => {
    expect(balancer.servers).toEqual(nodes.map(([name]) => ({ host: name, port: 8080 })));
    expect(balancer.checkPath).toBe("/readyz");
  });

  it("forwards the client's address and passes the country header only from the CDN it lists", () => {
    const [[, node]] = nodes as [[string, ComposeService]];
    const header = (node.environment?.COUNTRY_HEADER ?? "").toLowerCase();
    const frontend = balancer.frontend.map((line) => line.toLowerCase());
    expect(frontend).toContain("option forwardfor");
    expect(frontend).toContain(`http-request del-header ${header} unless from_cdn`);
    expect(frontend).toContain("http-request del-header x-forwarded-for unless from_cdn");
    expect(frontend.some((line) => line.startsWith("http-request deny") && line.includes("/metrics"))).toBe(true);
  });

  it("checks paths a running gateway answers: /readyz for the balancer, /healthz for the image", async () => {
    const server = await startServer();
    try {
      // As HAProxy's check sends it: HTTP/1.0, no Host header.
      const { port } = new URL(server.url);
      const status = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), "127.0.0.1", () =>
          socket.write(`GET ${balancer.checkPath} HTTP/1.0\r\n\r\n`),
        );
        let answer = "";
        socket.on("data", (chunk) => (answer += chunk));
        socket.on("end", () => resolve(answer.split("\r\n")[0] ?? ""));
        socket.on("error", reject);
      });
      expect(status).toMatch(/^HTTP\/1\.[01] 200 /u);
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe("production dependencies", () => {
  /** Packages a source file loads at run time (type-only imports are erased and need nothing). */
  function importedPackages(dir: string): Set<string> {
    const found = new Set<string>();
    for (const entry of readdirSync(join(REPO, dir), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !/\.(ts|tsx)$/u.test(entry.name)) continue;
      const text = readFileSync(join(entry.parentPath, entry.name), "utf8");
      const specifiers = [
        ...[...text.matchAll(/^\s*(?:import|export)\s+(?!type\s)[^;]*?\bfrom\s+"([^"]+)"/gmsu)].map((m) => m[1]),
        ...[...text.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/gu)].map((m) => m[1]),
        ...[...text.matchAll(/^\s*import\s+"([^"]+)"/gmu)].map((m) => m[1]),
      ];
      for (const specifier of specifiers as string[]) {
        if (specifier.startsWith(".") || specifier.startsWith("node:") || builtinModules.includes(specifier)) continue;
        const parts = specifier.split("/");
        found.add(specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] as string));
      }
    }
    return found;
  }

  it("has every package the server and the contract load among their production dependencies", () => {
    const declared = new Set([
      ...Object.keys(json("packages/server/package.json").dependencies),
      ...Object.keys(json("packages/contract/package.json").dependencies),
      // The runtime-deps step installs the contract as a workspace beside the server.
      "@gatehouse/contract",
    ]);
    const imported = new Set([
      ...importedPackages("packages/server/src"),
      ...importedPackages("packages/contract/src"),
    ]);
    expect(imported.size).toBeGreaterThan(10);
    expect([...imported].filter((name) => !declared.has(name))).toEqual([]);
  });
});

describe("deploy/alerts.yml", () => {
  const rules = (parse(read("deploy/alerts.yml")) as { groups: { rules: { alert: string; expr: string }[] }[] })
    .groups[0]?.rules;
  // The metrics of issue #14 (docs/deployment.md "Metrics") and Prometheus' own `up`.
  const METRICS = new Set([
    "up",
    "gatehouse_http_requests_total",
    "gatehouse_http_request_duration_seconds_bucket",
    "gatehouse_sign_ins_total",
    "gatehouse_blocks_total",
    "gatehouse_mail_queued_total",
    "gatehouse_mail_sent_total",
    "gatehouse_mail_failed_total",
    "gatehouse_mail_waiting",
    "gatehouse_mail_oldest_waiting_seconds",
    "gatehouse_tokens_issued_total",
    "gatehouse_db_pool_connections",
    "gatehouse_database_up",
    "nodejs_eventloop_lag_seconds",
  ]);

  it("alerts on the gateway's metrics only, each alert explained in docs/operations.md", () => {
    expect(rules?.length).toBeGreaterThan(5);
    const explained = [...read("docs/operations.md").matchAll(/^\| `(Gatehouse\w+)` \|/gmu)].map((m) => m[1]);
    expect(explained).toEqual(rules?.map((rule) => rule.alert));
    for (const rule of rules ?? []) {
      const metrics = [...rule.expr.matchAll(/\b([a-z_]+)\{/gu)].map((m) => m[1] as string);
      expect(metrics.length, rule.alert).toBeGreaterThan(0);
      for (const metric of metrics) expect(METRICS, `${rule.alert}: ${metric}`).toContain(metric);
    }
  });
});
