/**
 * The brands file's sites and hosts (BRANDS_FILE): which host shows which brand, the origins the service answers
 * on, and where each brand's mail links. config.ts loads the file; everything that asks about a host asks here.
 */
import { readFileSync } from "node:fs";
import { BRAND_IDS, type BrandId, Flags } from "@gatehouse/contract";
import { z } from "zod";

/** The brands file: which host name shows which theme and flags, and where return_to may point. */
export const BrandsFile = z.object({
  defaultBrand: z.enum(BRAND_IDS),
  returnHosts: z.array(z.string().toLowerCase()),
  sites: z.array(
    z.object({
      host: z
        .string()
        .toLowerCase()
        .regex(/^(\[[0-9a-f:]+\]|[a-z0-9-]+(\.[a-z0-9-]+)*)$/u, "must be a bare host name (no scheme, port or path)"),
      brand: z.enum(BRAND_IDS),
      flags: z.object(Flags.shape).partial().optional(),
      /**
       * Where a sign-in without a return address lands on this host (issue #24 §3): the brand's home page on the
       * public site (spec §4, the default), or `account`, the account page, for a host whose brand's public site is
       * out of reach (the development file's localhost hosts).
       */
      landing: z.enum(["home", "account"]).default("home"),
    }),
  ),
});
export type BrandsFile = z.infer<typeof BrandsFile>;

/** What the host questions need of the configuration (config.ts's Config has all of it). */
export interface Sites {
  brands: BrandsFile;
  /** PUBLIC_URL: the central host, and the scheme and port every host is served with. */
  publicUrl: URL;
  /** LINKED_SESSIONS (issue #10 §5). */
  linkedSessions: boolean;
}

/** Reads and validates BRANDS_FILE; `fail` makes the error to throw (the configuration's). */
export function readBrands(path: string, fail: (message: string) => Error): BrandsFile {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw fail(`BRANDS_FILE ${path} cannot be read: ${(error as Error).message}`);
  }
  const parsed = BrandsFile.safeParse(raw);
  if (!parsed.success) throw fail(`BRANDS_FILE ${path} is invalid: ${parsed.error.message}`);
  return parsed.data;
}

/** The brands file's site for a host name (the request's, lower case, without port), if it lists one. */
export function siteOf(config: Pick<Sites, "brands">, hostname: string): BrandsFile["sites"][number] | undefined {
  const host = hostname.toLowerCase();
  return config.brands.sites.find((s) => s.host === host);
}

/**
 * The origin of each host of the brands file, with PUBLIC_URL's scheme and port (every host is served the same way),
 * and PUBLIC_URL's own: the only origins the service answers on. Linked sessions and the web app's own client
 * (oidc/legacy.ts) take origins from here, never from a request's Host header.
 */
export function siteOrigins(config: Pick<Sites, "brands" | "publicUrl">): readonly string[] {
  let origins = siteOriginsOf.get(config.brands);
  if (!origins) {
    const { protocol, port } = config.publicUrl;
    const sites = config.brands.sites.map(
      (site) => new URL(`${protocol}//${site.host}${port ? `:${port}` : ""}`).origin,
    );
    origins = [...new Set([config.publicUrl.origin, ...sites])];
    siteOriginsOf.set(config.brands, origins);
  }
  return origins;
}

/** Worked out once per brands file: every session-link request asks (originOfHost). */
const siteOriginsOf = new WeakMap<BrandsFile, readonly string[]>();

/** Is this the central host of linked sessions (PUBLIC_URL's)? */
export function isCentralHost(config: Pick<Sites, "publicUrl">, hostname: string): boolean {
  return hostname.toLowerCase() === config.publicUrl.hostname;
}

const linkedBrandHosts = new WeakMap<BrandsFile, ReadonlySet<string>>();

/**
 * Does a request's host take part in linked sessions as a brand host (issue #10 §5)? The setting is on, the brands
 * file lists the host, and it is not the central host. A host outside the brands file has no origin a code could be
 * bound to, so it links nothing and its sessions need no link. Memoised per brands file: GET /session asks it.
 */
export function isLinkedBrandHost(
  config: Pick<Sites, "brands" | "publicUrl" | "linkedSessions">,
  hostname: string,
): boolean {
  if (!config.linkedSessions) return false;
  let hosts = linkedBrandHosts.get(config.brands);
  if (!hosts) {
    hosts = new Set(config.brands.sites.map((site) => site.host).filter((host) => host !== config.publicUrl.hostname));
    linkedBrandHosts.set(config.brands, hosts);
  }
  return hosts.has(hostname.toLowerCase());
}

/** The origin a request's host name has in the brands file (siteOrigins), if it is one of them. */
export function originOfHost(config: Pick<Sites, "brands" | "publicUrl">, hostname: string): string | undefined {
  const host = hostname.toLowerCase();
  return siteOrigins(config).find((origin) => new URL(origin).hostname === host);
}

/** localhost, *.localhost (browsers resolve it to loopback), 127.0.0.0/8 and [::1]. */
export function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host.endsWith(".localhost") || /^127(\.\d{1,3}){3}$/u.test(host) || host === "[::1]";
}

/**
 * The origin each brand's mailed links open on, from the brands file — never from a request's Host header
 * (host-header poisoning, OWASP WSTG-INPV-17). PUBLIC_URL when its host is one of the brand's sites; else the
 * first site listed for the brand whose host is of PUBLIC_URL's kind (loopback in development, public otherwise,
 * so a production mail never links to localhost and `npm start` never to a public name it does not serve), with
 * PUBLIC_URL's scheme and port; else, for a brand without such a site, PUBLIC_URL.
 */
export function brandOrigins(brands: BrandsFile, publicUrl: URL): Record<BrandId, string> {
  const loopback = isLoopbackHost(publicUrl.hostname);
  const port = publicUrl.port ? `:${publicUrl.port}` : "";
  const originOf = (id: BrandId) => {
    const sites = brands.sites.filter((s) => s.brand === id);
    if (sites.some((s) => s.host === publicUrl.hostname)) return publicUrl.origin;
    const site = sites.find((s) => isLoopbackHost(s.host) === loopback);
    return site ? new URL(`${publicUrl.protocol}//${site.host}${port}`).origin : publicUrl.origin;
  };
  return Object.fromEntries(BRAND_IDS.map((id) => [id, originOf(id)])) as Record<BrandId, string>;
}
