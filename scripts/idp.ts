/**
 * `npm run idp`: the stand-in identity provider for trying social and corporate sign-in on one machine (docs/protocols.md
 * "Trying it on one machine"), at http://127.0.0.1:8090 (IDP_PORT), with a redirect URI for every loopback host of
 * the brands file on Gatehouse's port (PUBLIC_URL's, 8080 by default). `packages/server/config/idps.dev.json`
 * points Gatehouse at it.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { startStandInIdp, TENANTS } from "./idp/stand-in.ts";

const ROOT = resolve(import.meta.dirname, "..");
const publicUrl = new URL(process.env.PUBLIC_URL ?? "http://localhost:8080");
const brandsFile = process.env.BRANDS_FILE ?? resolve(ROOT, "packages/server/config/brands.json");
const brands = JSON.parse(readFileSync(brandsFile, "utf8")) as { sites: { host: string }[] };
const loopback = (host: string) => host === "localhost" || host.endsWith(".localhost") || host.startsWith("127.");
const hosts = new Set([publicUrl.hostname, ...brands.sites.map((site) => site.host).filter(loopback)]);
const origins = [...hosts].map((host) => `${publicUrl.protocol}//${host}${publicUrl.port ? `:${publicUrl.port}` : ""}`);

const idp = await startStandInIdp({ port: Number(process.env.IDP_PORT ?? 8090), origins });
console.log(`Stand-in identity provider at ${idp.url}`);
for (const tenant of TENANTS) console.log(`  ${tenant.padEnd(9)} ${idp.issuer(tenant)}`);
console.log(`Redirect URIs for ${origins.join(", ")}`);
console.log("Start Gatehouse with IDPS_FILE=packages/server/config/idps.dev.json npm start");
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.once(signal, () => void idp.close().then(() => process.exit(0)));
