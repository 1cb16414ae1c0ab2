import { readFileSync } from "node:fs";
import { BRAND_IDS, type BrandId, WEB_CLIENT_ID } from "@gatehouse/contract";
import type { ResponseType } from "oidc-provider";
import { z } from "zod";

/** The response types a client may be given: code for everything new; the implicit ones only for legacy sites. */
const CODE_RESPONSE_TYPES = ["code"] as const;
const IMPLICIT_RESPONSE_TYPES = ["id_token", "id_token token"] as const;
const RESPONSE_TYPES = [...CODE_RESPONSE_TYPES, ...IMPLICIT_RESPONSE_TYPES, "none"] as const;
const GRANT_TYPES = ["authorization_code", "refresh_token", "implicit"] as const;
const AUTH_METHODS = ["client_secret_basic", "client_secret_post", "none"] as const;
/** A client secret carries at least 256 bits when written as base64url (RFC 9700 §2.5: strong credentials). */
const CLIENT_SECRET_MIN = 43;

const Uri = z.url({ protocol: /^[a-z][a-z0-9+.-]*$/u });

/**
 * One client of CLIENTS_FILE (ARCHITECTURE.md "Runtime contract"): OpenID Connect client metadata, plus our own
 * fields. Unknown fields are refused so a misspelt one is not silently ignored.
 */
export const ClientEntry = z
  .strictObject({
    client_id: z.string().regex(/^[A-Za-z0-9._~-]{1,100}$/u, "letters, digits and . _ ~ - only"),
    client_secret: z.string().min(CLIENT_SECRET_MIN, `at least ${CLIENT_SECRET_MIN} characters`).optional(),
    client_name: z.string().min(1).max(100).optional(),
    redirect_uris: z.array(Uri).min(1),
    post_logout_redirect_uris: z.array(Uri).default([]),
    application_type: z.enum(["web", "native"]).default("web"),
    grant_types: z.array(z.enum(GRANT_TYPES)).min(1).optional(),
    response_types: z.array(z.enum(RESPONSE_TYPES)).min(1).optional(),
    token_endpoint_auth_method: z.enum(AUTH_METHODS).optional(),
    backchannel_logout_uri: Uri.optional(),
    backchannel_logout_session_required: z.boolean().optional(),
    /** Our own: the theme the sign-in screens show for this client (default: the brands file's defaultBrand). */
    brand: z.enum(BRAND_IDS).optional(),
    /** Our own: an old site that may use the implicit flow (issue #10 §3); nothing else may. */
    legacy: z.boolean().default(false),
    /** Our own: the vendor's own site or app, which gets no consent screen. */
    first_party: z.boolean().default(false),
    /** Our own (issue #26): every sign-in for this client needs a second factor (acr aal2), set up if missing. */
    require_mfa: z.boolean().default(false),
  })
  .superRefine((client, ctx) => {
    const implicit =
      client.grant_types?.includes("implicit") ||
      client.response_types?.some((type) => (IMPLICIT_RESPONSE_TYPES as readonly string[]).includes(type));
    if (implicit && !client.legacy) {
      ctx.addIssue({ code: "custom", path: ["response_types"], message: "implicit flows are for legacy clients only" });
    }
    if (client.application_type === "native") {
      if (client.client_secret !== undefined || (client.token_endpoint_auth_method ?? "none") !== "none") {
        ctx.addIssue({
          code: "custom",
          path: ["token_endpoint_auth_method"],
          message: "a native app is a public client: token_endpoint_auth_method none and no client_secret",
        });
      }
    } else if ((client.token_endpoint_auth_method ?? "client_secret_basic") !== "none" && !client.client_secret) {
      ctx.addIssue({ code: "custom", path: ["client_secret"], message: "required for a confidential web client" });
    }
  });
export type ClientEntry = z.infer<typeof ClientEntry>;

export const ClientsFile = z.strictObject({
  clients: z.array(ClientEntry).superRefine((clients, ctx) => {
    const seen = new Set<string>();
    for (const [index, client] of clients.entries()) {
      if (client.client_id === WEB_CLIENT_ID) {
        ctx.addIssue({
          code: "custom",
          path: [index, "client_id"],
          message: `${WEB_CLIENT_ID} is the web app's own client (the legacy flow), reserved`,
        });
      }
      if (seen.has(client.client_id)) {
        ctx.addIssue({ code: "custom", path: [index, "client_id"], message: `${client.client_id} is listed twice` });
      }
      seen.add(client.client_id);
    }
  }),
});
export type ClientsFile = z.infer<typeof ClientsFile>;

/** A client as the provider is given it: metadata with our defaults filled in, and our fields. */
export interface ProviderClient {
  client_id: string;
  client_secret?: string;
  client_name?: string;
  redirect_uris: string[];
  post_logout_redirect_uris: string[];
  application_type: "web" | "native";
  grant_types: string[];
  response_types: ResponseType[];
  token_endpoint_auth_method: (typeof AUTH_METHODS)[number];
  backchannel_logout_uri?: string;
  backchannel_logout_session_required?: boolean;
  brand: BrandId;
  legacy: boolean;
  first_party: boolean;
  require_mfa: boolean;
}

/** Our field names, which the provider keeps on its Client (`extraClientMetadata`). */
export const OUR_CLIENT_FIELDS = ["brand", "legacy", "first_party", "require_mfa"] as const;

/**
 * Fills in the defaults: a native app is public (no secret, RFC 8252 §8.4) with code and refresh grants; a web
 * site is confidential with code and refresh grants; a legacy site keeps the implicit types it lists.
 */
export function toProviderClient(entry: ClientEntry, defaultBrand: BrandId): ProviderClient {
  const native = entry.application_type === "native";
  const responseTypes: ResponseType[] = entry.response_types ?? ["code"];
  const grantTypes = entry.grant_types ?? [
    ...(responseTypes.includes("code") ? ["authorization_code", "refresh_token"] : []),
    ...(responseTypes.some((type) => type !== "code" && type !== "none") ? ["implicit"] : []),
  ];
  return {
    client_id: entry.client_id,
    ...(entry.client_secret ? { client_secret: entry.client_secret } : {}),
    ...(entry.client_name ? { client_name: entry.client_name } : {}),
    redirect_uris: entry.redirect_uris,
    post_logout_redirect_uris: entry.post_logout_redirect_uris,
    application_type: entry.application_type,
    grant_types: grantTypes,
    response_types: responseTypes,
    token_endpoint_auth_method: entry.token_endpoint_auth_method ?? (native ? "none" : "client_secret_basic"),
    ...(entry.backchannel_logout_uri ? { backchannel_logout_uri: entry.backchannel_logout_uri } : {}),
    ...(entry.backchannel_logout_session_required === undefined
      ? {}
      : { backchannel_logout_session_required: entry.backchannel_logout_session_required }),
    brand: entry.brand ?? defaultBrand,
    legacy: entry.legacy,
    first_party: entry.first_party,
    require_mfa: entry.require_mfa,
  };
}

/**
 * In production a web client's redirect and post-logout addresses must be https (RFC 9700 §2.6, §4.1: no code or
 * token over plain http), except on a loopback host, where they never leave the person's own machine (the
 * default file's development site).
 */
/** Loopback addresses of RFC 8252 §7.3 and `localhost` (config.ts reads the same set for PUBLIC_URL). */
function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host.endsWith(".localhost") || /^127(\.\d{1,3}){3}$/u.test(host) || host === "[::1]";
}

function productionProblems(clients: readonly ClientEntry[]): string[] {
  return clients.flatMap((client, index) =>
    client.application_type === "native"
      ? []
      : [...client.redirect_uris, ...client.post_logout_redirect_uris]
          .filter((uri) => {
            const url = new URL(uri);
            return url.protocol !== "https:" && !(url.protocol === "http:" && isLoopbackHost(url.hostname));
          })
          .map((uri) => `  clients.${index}: ${uri} must be https in production (client ${client.client_id})`),
  );
}

/** Reads and validates CLIENTS_FILE; the message names the file and every problem (thrown as `make(message)`). */
export function readClients(
  path: string,
  options: { defaultBrand: BrandId; production: boolean },
  make: (message: string) => Error,
): ProviderClient[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw make(`CLIENTS_FILE ${path} cannot be read: ${(error as Error).message}`);
  }
  const parsed = ClientsFile.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`).join("\n");
    throw make(`CLIENTS_FILE ${path} is invalid:\n${problems}`);
  }
  const problems = options.production ? productionProblems(parsed.data.clients) : [];
  if (problems.length > 0) throw make(`CLIENTS_FILE ${path} is invalid:\n${problems.join("\n")}`);
  return parsed.data.clients.map((entry) => toProviderClient(entry, options.defaultBrand));
}

/** Legacy sites by origin (issue #10 §3, oidc/legacy.ts): each origin of a legacy client's redirect URIs, and its id. */
const sitesOf = new WeakMap<readonly ProviderClient[], ReadonlyMap<string, string>>();

/** The legacy sites of CLIENTS_FILE: the origins that may receive a token, each with its client's id. */
export function legacySites(clients: readonly ProviderClient[]): ReadonlyMap<string, string> {
  let sites = sitesOf.get(clients);
  if (!sites) {
    const entries = clients
      .filter((client) => client.legacy)
      .flatMap((client) => client.redirect_uris.map((uri) => [new URL(uri).origin, client.client_id] as const));
    sites = new Map(entries);
    sitesOf.set(clients, sites);
  }
  return sites;
}

/** The origins whose return addresses receive a token (the host page tells the web app, HostSettings). */
export function tokenOrigins(config: { clients: readonly ProviderClient[] }): string[] {
  return [...legacySites(config.clients).keys()];
}

/** A legacy client's redirect URI: the one address a token for that client may travel to. */
export interface LegacyAddress {
  clientId: string;
  /** What the person is shown: the client's name, else the address's host. */
  name: string;
}

/** A URL in the form every redirect is compared in (the WHATWG serialisation checkReturnTo also gives). */
function normalised(uri: string): string | undefined {
  try {
    return new URL(uri).href;
  } catch {
    return undefined;
  }
}

const addressesOf = new WeakMap<readonly ProviderClient[], ReadonlyMap<string, LegacyAddress>>();

function legacyAddresses(clients: readonly ProviderClient[]): ReadonlyMap<string, LegacyAddress> {
  let addresses = addressesOf.get(clients);
  if (!addresses) {
    const entries = clients
      .filter((client) => client.legacy)
      .flatMap((client) =>
        client.redirect_uris.map((uri) => {
          const name = client.client_name ?? new URL(uri).host;
          return [normalised(uri) ?? uri, { clientId: client.client_id, name }] as const;
        }),
      );
    addresses = new Map(entries);
    addressesOf.set(clients, addresses);
  }
  return addresses;
}

/**
 * The legacy client whose redirect URI `address` is, compared as whole normalised strings (RFC 9700 §2.1, ASVS
 * 10.4.1): another path, query or fragment on the same site is no match.
 */
export function legacyAddress(
  config: { clients: readonly ProviderClient[] },
  address: string,
): LegacyAddress | undefined {
  const key = normalised(address);
  return key === undefined ? undefined : legacyAddresses(config.clients).get(key);
}
