/**
 * `npm run licence-helper`: the licence-helper stand-in (docs/protocols.md "Studio sign-in and the licence helper") on
 * http://127.0.0.1:30304 (LICENCE_HELPER_PORT), verifying tokens against the gateway at PUBLIC_URL, answering CORS
 * for every loopback host of the brands file on Gatehouse's port. The mode comes from `--mode <mode>` or
 * LICENCE_HELPER_MODE: success (default), temporary, failure or slow.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { LICENCE_HELPER } from "@gatehouse/contract";
import { LICENCE_HELPER_MODES, type LicenceHelperMode, startLicenceHelper } from "./licence-helper/stand-in.ts";

const ROOT = resolve(import.meta.dirname, "..");
const { values } = parseArgs({ options: { mode: { type: "string" }, port: { type: "string" } } });
const mode = values.mode ?? process.env.LICENCE_HELPER_MODE ?? "success";
if (!(LICENCE_HELPER_MODES as readonly string[]).includes(mode)) {
  console.error(`Unknown mode ${mode}: one of ${LICENCE_HELPER_MODES.join(", ")}`);
  process.exit(2);
}
const publicUrl = new URL(process.env.PUBLIC_URL ?? "http://localhost:8080");
const brandsFile = process.env.BRANDS_FILE ?? resolve(ROOT, "packages/server/config/brands.json");
const brands = JSON.parse(readFileSync(brandsFile, "utf8")) as { sites: { host: string }[] };
const loopback = (host: string) => host === "localhost" || host.endsWith(".localhost") || host.startsWith("127.");
const hosts = new Set([publicUrl.hostname, ...brands.sites.map((site) => site.host).filter(loopback)]);
const origins = [...hosts].map((host) => `${publicUrl.protocol}//${host}${publicUrl.port ? `:${publicUrl.port}` : ""}`);

const helper = await startLicenceHelper({
  port: Number(values.port ?? process.env.LICENCE_HELPER_PORT ?? LICENCE_HELPER.port),
  gatewayUrl: publicUrl.origin,
  mode: mode as LicenceHelperMode,
  origins,
});
console.log(`Licence-helper stand-in at ${helper.url}, mode ${mode}, tokens from ${publicUrl.origin}/oidc`);
console.log(`Pages allowed to call it: ${origins.join(", ")}`);
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.once(signal, () => void helper.close().then(() => process.exit(0)));
