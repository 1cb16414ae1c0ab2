/**
 * `npm run demo`: everything a newcomer wants to try, in one terminal (README "Try everything: `npm run demo`"): the gateway as
 * `npm start` runs it, the stand-in identity providers, the stand-in forum, the licence-helper stand-in and a
 * third-party example site. Every address comes from the gateway's own settings (PUBLIC_URL, IDPS_FILE,
 * CLIENTS_FILE, DISCOURSE_URL, LICENCE_HELPER_URL, with development defaults), read by the gateway's own
 * loadConfig, so no port is written twice. Ctrl-C (or SIGTERM) stops all of it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { resolve } from "node:path";
import { type Config, loadConfig } from "../packages/server/src/config.ts";
import { issuerOf } from "../packages/server/src/oidc/provider.ts";
import { startExampleClient } from "./demo/example-client.ts";
import { startStandInForum } from "./forum/stand-in.ts";
import { startStandInIdp } from "./idp/stand-in.ts";
import { startLicenceHelper } from "./licence-helper/stand-in.ts";

const ROOT = resolve(import.meta.dirname, "..");
/** The example site of the development clients file: a third party, so its sign-in shows the consent screen. */
const EXAMPLE_CLIENT_ID = "example-app";
const READY_TIMEOUT_MS = 120_000;

/** The gateway's environment: the caller's, over the development defaults that switch every stand-in on. */
function demoEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    IDPS_FILE: resolve(ROOT, "packages/server/config/idps.dev.json"),
    DISCOURSE_URL: "http://127.0.0.1:8091",
    DISCOURSE_SECRET: "dev-discourse-secret",
    DISCOURSE_API_KEY: "dev-discourse-api-key",
    ...process.env,
  };
  // The gateway listens on PUBLIC_URL's port unless PORT says otherwise.
  const publicUrl = new URL(env.PUBLIC_URL ?? "http://localhost:8080");
  env.PORT ??= publicUrl.port || (publicUrl.protocol === "https:" ? "443" : "80");
  return env;
}

/** The one origin the identity providers file's issuers share: the stand-in serves every tenant there. */
function idpOrigin(config: Config): URL {
  const origins = new Set(config.idps.map((idp) => new URL(idp.issuer).origin));
  if (origins.size !== 1)
    throw new Error(`IDPS_FILE: the stand-in serves one origin, found ${[...origins].join(", ")}`);
  return new URL([...origins][0] as string);
}

/** Gatehouse's own origins on this machine: PUBLIC_URL and each loopback brand host on its port. */
function gatewayOrigins(config: Config): string[] {
  const { protocol, hostname, port } = config.publicUrl;
  const loopback = (host: string) => host === "localhost" || host.endsWith(".localhost") || host.startsWith("127.");
  const hosts = new Set([hostname, ...config.brands.sites.map((site) => site.host).filter(loopback)]);
  return [...hosts].map((host) => `${protocol}//${host}${port ? `:${port}` : ""}`);
}

function startGateway(env: NodeJS.ProcessEnv): ChildProcess {
  // As `npm start` runs it (package.json), so the demo is the same gateway.
  return spawn(
    process.execPath,
    ["--max-semi-space-size=4", "--max-old-space-size=192", resolve(ROOT, "scripts/start.ts")],
    {
      cwd: ROOT,
      env: { NODE_COMPILE_CACHE: resolve(ROOT, "node_modules/.cache/node-compile"), ...env },
      stdio: "inherit",
    },
  );
}

async function waitUntilReady(origin: string, gateway: ChildProcess): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (gateway.exitCode !== null) throw new Error(`the gateway exited (${gateway.exitCode})`);
    try {
      if ((await fetch(new URL("/readyz", origin))).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the gateway did not answer ${origin}/readyz within ${READY_TIMEOUT_MS / 1000} s`);
}

const env = demoEnvironment();
const config = loadConfig(env);
const origins = gatewayOrigins(config);
const gatewayUrl = config.publicUrl.origin;
const example = config.clients.find((client) => client.client_id === EXAMPLE_CLIENT_ID);
if (!example?.client_secret) throw new Error(`CLIENTS_FILE has no confidential client ${EXAMPLE_CLIENT_ID}`);

const idp = await startStandInIdp({ port: Number(idpOrigin(config).port), origins });
const forum = config.discourse
  ? await startStandInForum({
      port: Number(new URL(config.discourse.origin).port),
      gatewayUrl,
      secret: config.discourse.secret,
      apiKey: env.DISCOURSE_API_KEY ?? "",
      apiUsername: env.DISCOURSE_API_USERNAME ?? "system",
    })
  : undefined;
const helper = await startLicenceHelper({
  port: Number(new URL(config.licenceHelperOrigin).port),
  gatewayUrl,
  mode: "success",
  origins,
});
const site = await startExampleClient({
  issuer: issuerOf(config),
  clientId: example.client_id,
  clientSecret: example.client_secret,
  redirectUri: example.redirect_uris[0] as string,
  name: example.client_name ?? example.client_id,
});
const gateway = startGateway(env);

let stopping: Promise<void> | undefined;
/** Stops the gateway (it closes cleanly on SIGTERM) and every stand-in, then exits. */
function stop(code: number): Promise<void> {
  stopping ??= (async () => {
    if (gateway.exitCode === null && gateway.signalCode === null) {
      const exited = once(gateway, "exit");
      gateway.kill("SIGTERM");
      await exited;
    }
    await Promise.allSettled([idp.close(), forum?.close(), helper.close(), site.close()]);
    process.exit(code);
  })();
  return stopping;
}
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void stop(0));
gateway.once("exit", (code) => void stop(code ?? 1));

try {
  await waitUntilReady(gatewayUrl, gateway);
} catch (error) {
  console.error(`Demo not started: ${(error as Error).message}`);
  await stop(1);
}

const row = (label: string, address: string) => `  ${label.padEnd(28)} ${address}`;
console.log(
  [
    "",
    "Gatehouse demo is running. Open:",
    row("Sign-in page", `${gatewayUrl}/`),
    row("Sign-up page", `${gatewayUrl}/register`),
    row("Dev mailbox", `${gatewayUrl}/dev/mail`),
    row("Account page (signed in)", `${gatewayUrl}/profile/edit`),
    row("Example site (consent)", site.url),
    ...(forum ? [row("Forum (Log in)", forum.url)] : []),
    row("Studio sign-in (licence)", `${gatewayUrl}/trimble/login`),
    row("Identity providers", `${idp.url} (Google, Facebook, Trimble; any address @acme.example is corporate)`),
    row("Licence helper", helper.url),
    row("Other brands", origins.filter((origin) => origin !== gatewayUrl).join(" ")),
    "Ctrl-C stops everything.",
    "",
  ].join("\n"),
);
