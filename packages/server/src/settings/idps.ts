import { readFileSync } from "node:fs";
import { isSocialPlatform, SOCIAL_PLATFORM_NAMES } from "@gatehouse/contract";
import { z } from "zod";
import { isLoopbackHost } from "./sites.ts";

const DOMAIN = /^[a-z0-9-]+(\.[a-z0-9-]+)+$/u;

/** One entry of IDPS_FILE (ARCHITECTURE.md "Runtime contract"), in OpenID Connect metadata names. */
const ProviderEntry = z
  .object({
    /** `google`, `facebook`, `trimble`, or a company's id (lower case, as it appears in the callback's path). */
    id: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/u, "must be lower-case letters, digits, - or _"),
    /** Shown on Edit account; a company's provider should say the company's name. */
    name: z.string().min(1).max(64).optional(),
    /** `oauth2` for a provider without ID tokens (Facebook, whose profile comes from `userinfo_endpoint`). */
    protocol: z.enum(["oidc", "oauth2"]).optional(),
    /** Its discovery document is read unless the endpoints are given; either way the `iss` every answer must carry. */
    issuer: z.url(),
    authorization_endpoint: z.url().optional(),
    token_endpoint: z.url().optional(),
    userinfo_endpoint: z.url().optional(),
    jwks_uri: z.url().optional(),
    client_id: z.string().min(1),
    client_secret: z.string().min(1),
    scope: z.string().min(1).optional(),
    /** A company's e-mail domains: their people sign in there (spec §5 corporate hint, §7 login modes). */
    domains: z.array(z.string().toLowerCase().regex(DOMAIN, "must be a bare e-mail domain")).optional(),
  })
  .strict();

export const IdpsFile = z.object({ providers: z.array(ProviderEntry) }).superRefine((file, ctx) => {
  const ids = new Set<string>();
  const domains = new Set<string>();
  file.providers.forEach((p, i) => {
    const at = (message: string) => ctx.addIssue({ code: "custom", path: ["providers", i], message });
    if (ids.has(p.id)) at(`${p.id}: listed twice`);
    ids.add(p.id);
    const protocol = p.protocol ?? (p.id === "facebook" ? "oauth2" : "oidc");
    if (isSocialPlatform(p.id) && p.domains?.length) at(`${p.id}: a social provider has no domains`);
    if (!isSocialPlatform(p.id) && !p.domains?.length) at(`${p.id}: a company's provider needs its e-mail domains`);
    for (const domain of p.domains ?? []) {
      if (domains.has(domain)) at(`${domain}: belongs to two providers`);
      domains.add(domain);
    }
    if (p.authorization_endpoint && !p.token_endpoint)
      at(`${p.id}: token_endpoint is needed with authorization_endpoint`);
    if (protocol === "oauth2" && !(p.authorization_endpoint && p.userinfo_endpoint)) {
      at(`${p.id}: an OAuth 2.0 provider needs authorization_endpoint, token_endpoint and userinfo_endpoint`);
    }
    if (protocol === "oidc" && p.authorization_endpoint && !p.jwks_uri) {
      at(`${p.id}: jwks_uri is needed to check its ID tokens when the endpoints are given`);
    }
  });
});

export interface IdentityProvider {
  id: string;
  name: string;
  kind: "social" | "corporate";
  protocol: "oidc" | "oauth2";
  issuer: string;
  /** Given explicitly (no discovery): Facebook, Trimble (no discovery document), any provider so configured. */
  endpoints?: {
    authorization_endpoint: string;
    token_endpoint: string;
    userinfo_endpoint?: string;
    jwks_uri?: string;
  };
  clientId: string;
  clientSecret: string;
  scope: string;
  domains: readonly string[];
  /** Plain http to a loopback provider: the stand-in of development and tests, never in production. */
  insecure: boolean;
}

const DEFAULT_SCOPES = { oidc: "openid email profile", oauth2: "email public_profile" } as const;

/**
 * Reads IDPS_FILE; no file, no providers (the buttons stay hidden). Production accepts only https providers
 * (ASVS 12.3.1); elsewhere a loopback provider may speak http, as the development stand-in does.
 */
export function readIdps(
  path: string | undefined,
  options: { production: boolean },
  fail: (message: string) => Error,
): IdentityProvider[] {
  if (!path) return [];
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw fail(`IDPS_FILE ${path} cannot be read: ${(error as Error).message}`);
  }
  const parsed = IdpsFile.safeParse(raw);
  if (!parsed.success) throw fail(`IDPS_FILE ${path} is invalid: ${parsed.error.message}`);
  return parsed.data.providers.map((p) => {
    const protocol = p.protocol ?? (p.id === "facebook" ? "oauth2" : "oidc");
    const urls = [p.issuer, p.authorization_endpoint, p.token_endpoint, p.userinfo_endpoint, p.jwks_uri].filter(
      (url): url is string => url !== undefined,
    );
    const insecure = urls.some((url) => new URL(url).protocol !== "https:");
    if (insecure && (options.production || urls.some((url) => !isLoopbackHost(new URL(url).hostname)))) {
      throw fail(
        `IDPS_FILE ${path} is invalid: ${p.id}: its addresses must be https (http only to a loopback host outside production)`,
      );
    }
    return {
      id: p.id,
      name: p.name ?? (isSocialPlatform(p.id) ? SOCIAL_PLATFORM_NAMES[p.id] : p.id),
      kind: isSocialPlatform(p.id) ? "social" : "corporate",
      protocol,
      issuer: p.issuer,
      ...(p.authorization_endpoint && p.token_endpoint
        ? {
            endpoints: {
              authorization_endpoint: p.authorization_endpoint,
              token_endpoint: p.token_endpoint,
              ...(p.userinfo_endpoint ? { userinfo_endpoint: p.userinfo_endpoint } : {}),
              ...(p.jwks_uri ? { jwks_uri: p.jwks_uri } : {}),
            },
          }
        : {}),
      clientId: p.client_id,
      clientSecret: p.client_secret,
      scope: p.scope ?? DEFAULT_SCOPES[protocol],
      domains: p.domains ?? [],
      insecure,
    } satisfies IdentityProvider;
  });
}

/** The company provider whose domains include the address's, if any (spec §7 login modes). */
export function providerForEmail(providers: readonly IdentityProvider[], email: string): IdentityProvider | undefined {
  const domain = email.trim().toLowerCase().split("@").at(-1);
  return domain ? providers.find((p) => p.kind === "corporate" && p.domains.includes(domain)) : undefined;
}
