import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import proxyAddr from "@fastify/proxy-addr";
import {
  type BrandId,
  DEFAULT_TRIAL_PRODUCT_CODE,
  DISCOURSE_SECRET_MIN,
  LICENCE_HELPER,
  PRODUCT_CODE_PATTERN,
  type RemoteBotCheckProvider,
} from "@gatehouse/contract";
import { z } from "zod";
import { type ProviderClient, readClients } from "./settings/clients.ts";
import { type IdentityProvider, readIdps } from "./settings/idps.ts";
import { type BrandsFile, brandOrigins, readBrands } from "./settings/sites.ts";

const SERVER_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

const Env = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default("0.0.0.0"),
  PUBLIC_URL: z.url({ protocol: /^https?$/ }).default("http://localhost:8080"),
  DATABASE_URL: z
    .string()
    .regex(/^(sqlite:.+|postgres(ql)?:\/\/.+)$/u, "must be sqlite:<path> or postgres://…")
    .default("sqlite:./data/gatehouse.db"),
  SMTP_URL: z.url({ protocol: /^smtps?$/ }).optional(),
  MAIL_FROM: z.string().default("Gatehouse <no-reply@localhost>"),
  SESSION_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  BRANDS_FILE: z.string().default(resolve(SERVER_ROOT, "config/brands.json")),
  CLIENTS_FILE: z.string().default(resolve(SERVER_ROOT, "config/clients.json")),
  /** Social and corporate identity providers (issue #11); none when absent. */
  IDPS_FILE: z.string().optional(),
  COUNTRY_HEADER: z.string().toLowerCase().default("cf-ipcountry"),
  /** false, true (one proxy hop), a hop count, or a comma-separated list of proxy addresses/CIDRs. */
  TRUST_PROXY: z.string().default("false"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  WEB_DIST: z.string().default(resolve(SERVER_ROOT, "../web/dist")),
  /** The gateway base the web app calls when the API lives on another origin; default: /api on the page's own. */
  GATEWAY_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** Bot check for visitors outside CN: our proof of work, or a provider's siteverify. */
  BOT_CHECK: z.enum(["altcha", "turnstile", "recaptcha"]).default("altcha"),
  BOT_CHECK_SECRET: z.string().optional(),
  BOT_CHECK_SITE_KEY: z.string().optional(),
  /** Override of the provider's verify URL (tests, proxies). */
  BOT_CHECK_VERIFY_URL: z.url().optional(),
  /** Spec §4, issue #10 §5: brand hosts link their sessions through the central host (PUBLIC_URL). Off by default. */
  LINKED_SESSIONS: z.enum(["true", "false"]).default("false"),
  /** Issue #12: the product code of a trial whose address names none (spec §7: "a fixed code"). */
  TRIAL_PRODUCT_CODE: z
    .string()
    .regex(PRODUCT_CODE_PATTERN, "must be letters, digits, '.', '_' or '-' (at most 64)")
    .default(DEFAULT_TRIAL_PRODUCT_CODE),
  /** Issue #13, the forum bridge: the forum's origin and the DiscourseConnect secret shared with it. */
  DISCOURSE_URL: z.url({ protocol: /^https?$/ }).optional(),
  DISCOURSE_SECRET: z
    .string()
    .min(DISCOURSE_SECRET_MIN, `must be at least ${DISCOURSE_SECRET_MIN} characters (Discourse requires it)`)
    .optional(),
  /** The forum's admin API key and the user it acts as, for signing people out of the forum. */
  DISCOURSE_API_KEY: z.string().min(1).optional(),
  DISCOURSE_API_USERNAME: z.string().min(1).default("system"),
  /**
   * Issue #13: where the studio page finds the person's local licence helper (spec §7: localhost, port 30304). An
   * origin only: http(s), no path, query or credentials; the pages' CSP lets the studio page connect to it alone.
   */
  LICENCE_HELPER_URL: z
    .url({ protocol: /^https?$/ })
    .default(LICENCE_HELPER.defaultUrl)
    .refine((value) => {
      const url = new URL(value);
      return url.origin === value.replace(/\/+$/u, "") && url.username === "" && url.password === "";
    }, "must be an origin such as http://localhost:30304 (no path, query or credentials)"),
  /**
   * Issue #14: /metrics on the main port answers only `Authorization: Bearer <METRICS_TOKEN>`. A token as RFC 6750
   * spells one, so any scraper can send it as it is; long enough that guessing it is hopeless.
   */
  METRICS_TOKEN: z
    .string()
    .min(32, "must be at least 32 characters")
    .regex(/^[A-Za-z0-9._~+/-]+=*$/u, "must be letters, digits and - . _ ~ + / (a bearer token, RFC 6750)")
    .optional(),
  /** Issue #14: a second listener that serves only /metrics, without a token, on METRICS_HOST (default: HOST). */
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  METRICS_HOST: z.string().min(1).optional(),
  /**
   * Issue #28: how long a request's statement, or its wait for a row or table lock, may take on PostgreSQL before
   * the request answers 503 with Retry-After (docs/decisions.md "Statement and lock timeouts"). 0 turns one off.
   */
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).default(5_000),
  DATABASE_LOCK_TIMEOUT_MS: z.coerce.number().int().min(0).default(2_000),
  /** The same for migrations and the admin CLI, which build indexes and rewrite many rows. */
  DATABASE_ADMIN_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).default(600_000),
  DATABASE_ADMIN_LOCK_TIMEOUT_MS: z.coerce.number().int().min(0).default(30_000),
  /** SQLite: how long a write waits for another connection's write transaction before answering 503. */
  SQLITE_BUSY_TIMEOUT_MS: z.coerce.number().int().min(0).default(5_000),
  /** Issue #28: audit events older than this many days are removed by the sweeper. */
  AUDIT_RETENTION_DAYS: z.coerce.number().int().min(1).default(400),
  /** Issue #28: how often a node reads the signing keys again, so it picks up `keys:rotate` without a restart. */
  SIGNING_KEYS_REFRESH_S: z.coerce.number().int().min(1).max(60).default(30),
});

export interface Config {
  production: boolean;
  nodeEnv: "development" | "production" | "test";
  port: number;
  host: string;
  publicUrl: URL;
  databaseUrl: string;
  smtpUrl: string | undefined;
  mailFrom: string;
  sessionSecret: string;
  brands: BrandsFile;
  brandsFile: string;
  /** The OpenID Connect clients of CLIENTS_FILE, validated, with our defaults filled in. */
  clients: ProviderClient[];
  /** The identity providers of IDPS_FILE (issue #11): social ones and companies'. */
  idps: IdentityProvider[];
  /** Every company provider's e-mail domains: their people sign in there (spec §5 corporate hint). */
  corporateDomains: readonly string[];
  /** Where each brand's mailed links open (see `brandOrigins`): an origin such as https://login.cloud.example. */
  brandOrigins: Readonly<Record<BrandId, string>>;
  /** GATEWAY_URL without its trailing slash, when the web app is to call a gateway on another origin. */
  gatewayUrl: string | undefined;
  countryHeader: string;
  trustProxy: boolean | string[] | ((address: string, hop: number) => boolean);
  /** Is the peer of a connection a proxy we trust (TRUST_PROXY)? Only then are its headers believed. */
  trustedProxy: (address: string | undefined) => boolean;
  logLevel: string;
  webDist: string;
  botCheck:
    | { provider: "altcha" }
    | { provider: RemoteBotCheckProvider; secret: string; siteKey: string; verifyUrl: string };
  /** LINKED_SESSIONS: brand hosts share a sign-in through the central host (issue #10 §5). */
  linkedSessions: boolean;
  /** TRIAL_PRODUCT_CODE (issue #12). */
  trialProductCode: string;
  /** LICENCE_HELPER_URL's origin (issue #13): the local licence helper the studio page calls. */
  licenceHelperOrigin: string;
  /** The forum bridge (issue #13), on when DISCOURSE_URL and DISCOURSE_SECRET are both set. */
  discourse: DiscourseConfig | undefined;
  /** Where the metrics are served (issue #14); none are kept when neither METRICS_TOKEN nor METRICS_PORT is set. */
  metrics: MetricsConfig | undefined;
  /** Issue #28: the database sessions' timeouts, for requests and for migrations and the admin CLI. */
  database: { requests: DatabaseTimeouts; admin: DatabaseTimeouts };
  /** AUDIT_RETENTION_DAYS in milliseconds: older audit events are swept. */
  auditRetentionMs: number;
  /** SIGNING_KEYS_REFRESH_S in milliseconds: how often a node reads the signing keys again. */
  signingKeysRefreshMs: number;
}

/** How long a statement and a lock wait may take (PostgreSQL), and a write's wait for the lock (SQLite). */
export interface DatabaseTimeouts {
  statementTimeoutMs: number;
  lockTimeoutMs: number;
  busyTimeoutMs: number;
}

/** /metrics: on the main port to the token's bearer, and/or on a port of its own without one (docs/deployment.md "Metrics"). */
export interface MetricsConfig {
  token: string | undefined;
  port: number | undefined;
  host: string;
}

/** The forum's DiscourseConnect settings, and its admin API for sign-outs when a key is set. */
export interface DiscourseConfig {
  /** The forum's origin (scheme, host, port): `return_sso_url` must be on exactly this origin. */
  origin: string;
  secret: string;
  api: { key: string; username: string } | undefined;
}

export class ConfigError extends Error {}

/** Reads and validates the environment; throws ConfigError with every problem named. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = Env.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`).join("\n");
    throw new ConfigError(`Invalid configuration:\n${problems}`);
  }
  const e = parsed.data;
  const production = e.NODE_ENV === "production";
  const publicUrl = new URL(e.PUBLIC_URL);
  const brands = readBrands(e.BRANDS_FILE, (message) => new ConfigError(message));
  const idps = readIdps(e.IDPS_FILE, { production }, (message) => new ConfigError(message));
  // Production has no dev mailbox: without an SMTP server its mail would be marked sent and never leave.
  if (production && !e.SMTP_URL) throw new ConfigError("Invalid configuration:\n  SMTP_URL: required in production");
  return {
    production,
    nodeEnv: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    publicUrl,
    databaseUrl: e.DATABASE_URL,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    sessionSecret: e.SESSION_SECRET ?? devSecret(production, e.DATABASE_URL),
    brands,
    brandsFile: e.BRANDS_FILE,
    clients: readClients(
      e.CLIENTS_FILE,
      { defaultBrand: brands.defaultBrand, production },
      (message) => new ConfigError(message),
    ),
    idps,
    corporateDomains: idps.flatMap((idp) => idp.domains),
    brandOrigins: brandOrigins(brands, publicUrl),
    gatewayUrl: e.GATEWAY_URL?.replace(/\/+$/u, ""),
    countryHeader: e.COUNTRY_HEADER,
    trustProxy: parseTrustProxy(e.TRUST_PROXY),
    trustedProxy: trustedProxyOf(parseTrustProxy(e.TRUST_PROXY)),
    logLevel: e.LOG_LEVEL,
    webDist: e.WEB_DIST,
    botCheck: botCheck(e),
    linkedSessions: e.LINKED_SESSIONS === "true",
    trialProductCode: e.TRIAL_PRODUCT_CODE,
    licenceHelperOrigin: licenceHelper(e, production),
    discourse: discourse(e, production),
    metrics: metrics(e),
    database: {
      requests: {
        statementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
        lockTimeoutMs: e.DATABASE_LOCK_TIMEOUT_MS,
        busyTimeoutMs: e.SQLITE_BUSY_TIMEOUT_MS,
      },
      admin: {
        statementTimeoutMs: e.DATABASE_ADMIN_STATEMENT_TIMEOUT_MS,
        lockTimeoutMs: e.DATABASE_ADMIN_LOCK_TIMEOUT_MS,
        busyTimeoutMs: Math.max(e.SQLITE_BUSY_TIMEOUT_MS, e.DATABASE_ADMIN_LOCK_TIMEOUT_MS),
      },
    },
    auditRetentionMs: e.AUDIT_RETENTION_DAYS * 24 * 3600_000,
    signingKeysRefreshMs: e.SIGNING_KEYS_REFRESH_S * 1000,
  };
}

function metrics(e: z.infer<typeof Env>): MetricsConfig | undefined {
  if (e.METRICS_HOST !== undefined && e.METRICS_PORT === undefined) {
    throw new ConfigError(
      "Invalid configuration:\n  METRICS_HOST: set METRICS_PORT too (the host is the metrics port's)",
    );
  }
  if (e.METRICS_PORT !== undefined && e.METRICS_PORT === e.PORT) {
    throw new ConfigError("Invalid configuration:\n  METRICS_PORT: must differ from PORT (the API's port)");
  }
  if (e.METRICS_TOKEN === undefined && e.METRICS_PORT === undefined) return undefined;
  return { token: e.METRICS_TOKEN, port: e.METRICS_PORT, host: e.METRICS_HOST ?? e.HOST };
}

/**
 * The licence helper is a program on the person's own computer (spec §7): in production its address must be a
 * loopback one, so no configuration mistake sends people's access tokens to a host on the network.
 */
function licenceHelper(e: z.infer<typeof Env>, production: boolean): string {
  const url = new URL(e.LICENCE_HELPER_URL);
  if (production && !["localhost", "127.0.0.1", "[::1]"].includes(url.hostname)) {
    throw new ConfigError(
      "Invalid configuration:\n  LICENCE_HELPER_URL: must be on this computer (localhost, 127.0.0.1 or [::1]) in production",
    );
  }
  return url.origin;
}

/** The forum bridge: both the address and the secret, or neither (one alone is a mistake worth stopping for). */
function discourse(e: z.infer<typeof Env>, production: boolean): DiscourseConfig | undefined {
  if (!e.DISCOURSE_URL && !e.DISCOURSE_SECRET) return undefined;
  if (!e.DISCOURSE_URL || !e.DISCOURSE_SECRET) {
    throw new ConfigError("Invalid configuration:\n  DISCOURSE_URL and DISCOURSE_SECRET: set both, or neither");
  }
  const url = new URL(e.DISCOURSE_URL);
  if (url.pathname !== "/" || url.search || url.hash || url.username || url.password) {
    throw new ConfigError(
      "Invalid configuration:\n  DISCOURSE_URL: must be the forum's origin (no path, query or user)",
    );
  }
  // The admin API key travels to this origin with every sign-out (ASVS 12.1.1: TLS for every external connection).
  if (production && url.protocol !== "https:") {
    throw new ConfigError("Invalid configuration:\n  DISCOURSE_URL: must be https in production");
  }
  return {
    origin: url.origin,
    secret: e.DISCOURSE_SECRET,
    api: e.DISCOURSE_API_KEY ? { key: e.DISCOURSE_API_KEY, username: e.DISCOURSE_API_USERNAME } : undefined,
  };
}

const VERIFY_URLS = {
  turnstile: "https://challenges.cloudflare.com/turnstile/v0/siteverify",
  recaptcha: "https://www.google.com/recaptcha/api/siteverify",
} as const;

function botCheck(e: z.infer<typeof Env>): Config["botCheck"] {
  if (e.BOT_CHECK === "altcha") return { provider: "altcha" };
  if (!e.BOT_CHECK_SECRET || !e.BOT_CHECK_SITE_KEY) {
    throw new ConfigError(
      `Invalid configuration:\n  BOT_CHECK_SECRET and BOT_CHECK_SITE_KEY: required when BOT_CHECK=${e.BOT_CHECK}`,
    );
  }
  return {
    provider: e.BOT_CHECK,
    secret: e.BOT_CHECK_SECRET,
    siteKey: e.BOT_CHECK_SITE_KEY,
    verifyUrl: e.BOT_CHECK_VERIFY_URL ?? VERIFY_URLS[e.BOT_CHECK],
  };
}

/**
 * Fastify's trustProxy: false; a number of proxy hops in front of us ("true" is one, the load balancer), whose
 * X-Forwarded-For entries we believe, so the client address is the one the outermost of them saw; or a list of
 * proxy addresses/CIDRs. Blanket trust would let any client choose its address and dodge rate limits.
 */
function parseTrustProxy(value: string): Config["trustProxy"] {
  const bare = value.trim().toLowerCase();
  if (bare === "" || bare === "false" || bare === "0") return false;
  const hops = bare === "true" ? 1 : /^\d+$/u.test(bare) ? Number(bare) : undefined;
  if (hops !== undefined) return (_address, hop) => hop < hops;
  return bare.split(",").map((s) => s.trim());
}

/**
 * The rule Fastify applies to X-Forwarded-Host and -Proto, for any header a proxy sets (COUNTRY_HEADER): the
 * connection's peer must be trusted under TRUST_PROXY (hop 0). Off, nobody is; a hop count trusts the peer, which
 * is the load balancer when the service is reachable only through it; a list trusts those addresses only.
 */
function trustedProxyOf(trust: Config["trustProxy"]): Config["trustedProxy"] {
  if (trust === false) return () => false;
  const trusts = typeof trust === "function" ? trust : trust === true ? () => true : proxyAddr.compile(trust);
  return (address) => address !== undefined && trusts(address, 0);
}

/** Outside production a missing SESSION_SECRET is generated once and kept beside the SQLite file. */
function devSecret(production: boolean, databaseUrl: string): string {
  if (production) throw new ConfigError("Invalid configuration:\n  SESSION_SECRET: required in production");
  const dataDir =
    databaseUrl.startsWith("sqlite:") && !databaseUrl.endsWith(":memory:")
      ? dirname(resolve(databaseUrl.slice(7)))
      : resolve("data");
  const file = resolve(dataDir, "session-secret");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}
