/**
 * The layers of packages/server/src, bottom first: a module may import its own layer and any layer below, never one
 * above (docs/decisions.md "Layers of the server"). Each entry is a top-level file or folder of src/.
 *
 * Why this order: a request flows routes → services → store (STYLE.md), so what only reads the environment or holds
 * data sits lowest; plain services that one request step needs (audit, codes, captcha, counting, mail, the job queue)
 * sit under the domain services that use them; the sign-in core assembles domain services; the OpenID provider uses
 * the sign-in core; http/ (cookies, headers, the guard) serves both the provider and the routes, and knows neither;
 * routes only parse, call and answer; the app assembles everything.
 */
export const LAYERS: readonly (readonly string[])[] = [
  // The environment (config.ts), the files it names (settings/: brands and their sites, clients, identity
  // providers), and constants: they import nothing above them. Beside the countries' names, the devices' (issue #27: a
  // user agent in words, for the security page's lists and the new-browser mail of a sign-in).
  ["config.ts", "settings", "html.ts", "countries.ts", "devices.ts"],
  // SQL through Kysely, no rules.
  ["store"],
  // Small services on the store; `jobs` holds the one leased queue, `mail` is a kind of job on it; `events` tells
  // whoever listens that gateway sessions ended (the provider's back-channel logout, the forum's sign-out).
  ["audit", "codes", "captcha", "metrics", "jobs", "mail", "events"],
  // Domain services: accounts, sessions, federated identities, the forum bridge, second factors and passkeys; and
  // the sweeper (issue #28), which removes their expired rows in bounded batches.
  ["sessions", "accounts", "federation", "forum", "factors", "sweeper.ts"],
  // The sign-in core (issue #24 §1): one next step for an attempt, from the domain services.
  ["signin"],
  // HTTP only: cookies, headers, the guard, errors, pages, the metrics listener.
  ["http"],
  // The OpenID provider: on the sign-in core, and on http/ for the session cookie and the error answers. Beside it,
  // issue #27's security page (security/): the person's sessions, the provider's grants, the audit trail, in words.
  ["oidc", "security"],
  // What routes are handed (the configuration, the database, the workers, the provider): a type, built by app.ts.
  ["services.ts"],
  // One file per endpoint: parse with the contract, call a service, shape the answer.
  ["routes"],
  // Assembly: the app, the entry points, the admin command line.
  ["admin", "app.ts", "main.ts"],
];

/** Top-level entries routes/ must not import: a route calls a service, never SQL, and never another route. */
export const ROUTES_MAY_NOT_IMPORT: readonly string[] = ["store", "routes"];

/**
 * Imports against the order in files the sign-in core's rewrite owns (issue #24 §1): tolerated until it lands, each
 * the start of a line as the check prints it. One that no longer occurs fails the check, so the list only shrinks.
 */
export const PENDING: readonly string[] = [];
