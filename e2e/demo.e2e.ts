/**
 * Issue #25 "README": `npm run demo` starts the gateway with every stand-in, each on the address the gateway's own
 * settings give it; the sign-in page shows the providers' buttons, the example site's sign-in reaches the consent
 * screen and comes back signed in, and Ctrl-C (SIGINT to the terminal's process group) stops all of it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../packages/server/test/ports.ts";
import { runEnvironment } from "./global.ts";
import { createPerson, launch, signIn, uniqueEmail, visit } from "./support.ts";

const ROOT = resolve(import.meta.dirname, "..");
const CONFIG = join(ROOT, "packages/server/config");
const PASSWORD = "correct horse battery";
const READY_LINE = "Ctrl-C stops everything.";

let demo: ChildProcess;
let output = "";
let browser: Browser;
let gatewayUrl = "";
let databaseUrl = "";
let settings: { IDPS_FILE: string; CLIENTS_FILE: string };

/** The development settings files with their ports moved to free ones, so the e2e run's own servers never collide. */
function movedSettings(dir: string, ports: { idp: number; site: number }) {
  const idps = readFileSync(join(CONFIG, "idps.dev.json"), "utf8").replaceAll(
    "127.0.0.1:8090",
    `127.0.0.1:${ports.idp}`,
  );
  const clients = readFileSync(join(CONFIG, "clients.json"), "utf8").replaceAll(
    "127.0.0.1:8092",
    `127.0.0.1:${ports.site}`,
  );
  writeFileSync(join(dir, "idps.json"), idps);
  writeFileSync(join(dir, "clients.json"), clients);
  return { IDPS_FILE: join(dir, "idps.json"), CLIENTS_FILE: join(dir, "clients.json") };
}

/** The address the demo printed for a label. */
function printed(label: string): string {
  const line = output.split("\n").find((text) => text.trimStart().startsWith(label));
  const address = line?.match(/https?:\/\/\S+/u)?.[0];
  if (!address) throw new Error(`the demo printed no address for ${label}:\n${output}`);
  return address;
}

/** Is any process of the demo's group still alive? */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-demo-"));
  const [gateway, idp, site, forum, helper] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  gatewayUrl = `http://localhost:${gateway}`;
  databaseUrl = `sqlite:${join(dir, "gatehouse.db")}`;
  settings = movedSettings(dir, { idp, site });
  // Its own process group, as a terminal runs it: Ctrl-C is SIGINT to the whole group.
  demo = spawn("npm", ["run", "demo"], {
    cwd: ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      ...runEnvironment(),
      ...settings,
      PUBLIC_URL: gatewayUrl,
      DATABASE_URL: databaseUrl,
      DISCOURSE_URL: `http://127.0.0.1:${forum}`,
      LICENCE_HELPER_URL: `http://127.0.0.1:${helper}`,
      // The run's own build: the demo must not rebuild it under the other tests.
      WEB_DIST: join(ROOT, "packages/web/dist"),
      LOG_LEVEL: "warn",
    },
  });
  const ready = new Promise<void>((done, fail) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(READY_LINE)) done();
    };
    demo.stdout?.on("data", read);
    demo.stderr?.on("data", read);
    demo.once("exit", (code) => fail(new Error(`npm run demo exited (${code}):\n${output}`)));
  });
  await ready;
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
  if (demo?.pid && groupAlive(demo.pid)) process.kill(-demo.pid, "SIGKILL");
});

describe("npm run demo (issue #25)", () => {
  it("prints each address from the gateway's settings", () => {
    expect(printed("Sign-in page")).toBe(`${gatewayUrl}/`);
    expect(printed("Dev mailbox")).toBe(`${gatewayUrl}/dev/mail`);
    const idps = JSON.parse(readFileSync(settings.IDPS_FILE, "utf8")) as { providers: { issuer: string }[] };
    expect(printed("Identity providers")).toBe(new URL(idps.providers[0]?.issuer ?? "").origin);
    const clients = JSON.parse(readFileSync(settings.CLIENTS_FILE, "utf8")) as {
      clients: { client_id: string; redirect_uris: string[] }[];
    };
    const site = clients.clients.find((client) => client.client_id === "example-app");
    expect(printed("Example site")).toBe(`${new URL(site?.redirect_uris[0] ?? "").origin}/`);
  });

  it("serves the sign-in page with the local identity providers' buttons", async () => {
    const { page, context } = await visit(browser, "/", {}, gatewayUrl);
    for (const provider of [/Google/u, /Facebook/u, /Trimble/u]) {
      await expect.poll(() => page.getByRole("button", { name: provider }).count()).toBe(1);
    }
    // The buttons lead to the stand-in the demo started, where the providers file says it is.
    await page.getByRole("button", { name: /Google/u }).click();
    const idp = new URL(printed("Identity providers"));
    await page.waitForURL((target) => target.origin === idp.origin);
    await context.close();
  });

  it("signs in to the example site through the consent screen", async () => {
    const email = uniqueEmail("demo");
    await createPerson({ email, password: PASSWORD, first: "Ann", last: "Lee", country: "DE" }, databaseUrl);
    const { page, context } = await visit(browser, printed("Example site"), {}, gatewayUrl);
    await page.getByRole("link", { name: "Sign in with Gatehouse" }).click();
    await page.getByRole("heading", { level: 1, name: "Sign in to continue to Example App" }).waitFor();
    await signIn(page, email, PASSWORD);
    await page.getByRole("heading", { level: 1, name: "Example App would like to use your account" }).waitFor();
    await page.getByRole("button", { name: "Allow" }).click();
    await page.getByText("Signed in as Ann Lee").waitFor();
    expect(await page.textContent("main")).toContain(email);
    await context.close();
  });

  it("sends the forum's Log in to the gateway's forum bridge", async () => {
    const { page, context } = await visit(browser, printed("Forum"), {}, gatewayUrl);
    await page.getByRole("link", { name: "Log in" }).click();
    await page.waitForURL((target) => target.origin === gatewayUrl);
    await context.close();
  });

  it("stops every process and frees every port on Ctrl-C", async () => {
    const pid = demo.pid as number;
    const exited = once(demo, "exit");
    process.kill(-pid, "SIGINT");
    await exited;
    await expect.poll(() => groupAlive(pid), { timeout: 15_000 }).toBe(false);
    const gateway = await fetch(gatewayUrl).catch(() => undefined);
    expect(gateway).toBeUndefined();
  });
});
