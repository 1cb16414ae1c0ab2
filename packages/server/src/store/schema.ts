import type { OwedStep, SignInMethod } from "@gatehouse/contract";
import type { Generated, Insertable, Selectable, Updateable } from "kysely";

/** Times are epoch milliseconds; flags are 0/1 integers, the same on SQLite and PostgreSQL. */
export interface UsersTable {
  id: string;
  email: string;
  email_normalized: string;
  password_hash: string | null;
  first_name: string;
  last_name: string;
  country_code: string;
  newsletter: number;
  status: "pending" | "active" | "disabled";
  customer_number: string | null;
  password_allowed: number;
  required_password_update: number;
  required_profile_update: number;
  language: string;
  brand: string;
  created_at: number;
  updated_at: number;
  /** JSON of where the sign-up came from (utm_*, referer, product code, trial flags). */
  signup_meta: string | null;
  /** JSON of the set-up survey's answers (invited users). */
  marketing_info: string | null;
  /** 1 once the person proved the address (a mailed link) or a provider vouched for it (issue #13). */
  email_verified: number;
}

export interface SessionsTable {
  /** SHA-256 of the cookie's token: a stolen table does not hold usable tokens. */
  id: string;
  user_id: string;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
  ip: string;
  user_agent: string;
  /** When the person proved who they are (OIDC `auth_time`): kept when the session's token rotates. */
  auth_time: number;
  auth_method: SignInMethod;
  /** The identity provider of a social or corporate sign-in (its id in IDPS_FILE); null otherwise. */
  idp: string | null;
  /** Unused since issue #24 (no session owes a step: sign_in_attempts does); kept for a rolling upgrade. */
  pending_step: string | null;
  /** RFC 8176 values of how the person signed in, space-separated (issue #24); null on sessions opened before. */
  amr: string | null;
  /** The sign-in this session belongs to, shared by its linked sessions on other hosts (issue #10 §5). */
  sign_in_id: string | null;
  /** 1 once the sign-in has reached the central host (PUBLIC_URL), so `GET /session` says Linked. */
  linked: Generated<number>;
  /** The last proof in this session (its sign-in, or a step-up, issue #26); null on sessions opened before. */
  fresh_at: number | null;
  /** Issue #27: the host name the session is on, and the trusted country header's code at its sign-in. */
  host: string | null;
  country: string | null;
}

/** Issue #26: an account's authenticator app (migration 015). */
export interface TotpFactorsTable {
  user_id: string;
  secret_sealed: string;
  confirmed_at: number | null;
  last_step: Generated<number>;
  created_at: number;
}

/** Issue #26: single-use recovery codes, by SHA-256. */
export interface RecoveryCodesTable {
  code_hash: string;
  user_id: string;
  created_at: number;
  used_at: number | null;
}

/** Issue #26: WebAuthn credentials (passkeys and security keys). */
export interface PasskeysTable {
  id: string;
  user_id: string;
  rp_id: string;
  public_key: string;
  counter: Generated<number>;
  transports: Generated<string>;
  device_type: string;
  backed_up: Generated<number>;
  name: string;
  created_at: number;
  last_used_at: number | null;
}

/** Issue #26: a browser's pending WebAuthn ceremony, one per purpose, single-use. */
export interface WebauthnChallengesTable {
  id: string;
  challenge: string;
  purpose: string;
  user_id: string | null;
  rp_id: string;
  expires_at: number;
}

/** Issue #26: browsers a person asked to remember for the second factor. */
export interface RememberedBrowsersTable {
  device_id: string;
  user_id: string;
  expires_at: number;
}

/** A sign-in whose proof is given and that still owes a step (issue #24, signin/attempts.ts). */
export interface SignInAttemptsTable {
  id: string;
  user_id: string;
  method: SignInMethod;
  idp: string | null;
  amr: string;
  auth_time: number;
  owes: OwedStep;
  destination: string;
  expires_at: number;
}

/** A single-use code that carries a session to another brand host (issue #10 §5). */
export interface SessionLinksTable {
  id: string;
  session_id: string;
  origin: string;
  state_hash: string;
  expires_at: number;
}

/** An account's identity at an external provider (social, corporate), keyed by the provider's subject. */
export interface ExternalIdentitiesTable {
  /** The provider's id in IDPS_FILE (`google`, `facebook`, `trimble`, a corporate id). */
  provider: string;
  /** The provider's stable `sub` for the person. */
  subject: string;
  user_id: string;
  /** The address the provider gave when the identity was linked; informational, never a key. */
  email: string | null;
  linked_at: number;
}

/** One round trip to an identity provider (issue #11): found by its state's hash, used once. */
export interface FederationFlowsTable {
  id: string;
  browser: string;
  provider: string;
  nonce: string | null;
  code_verifier: string;
  redirect_uri: string;
  return_to: string | null;
  expires_at: number;
}

/** A provider's answer waiting for the person: a new account's details (`register`) or a password (`link`). */
export interface FederationPendingTable {
  browser: string;
  kind: "register" | "link";
  provider: string;
  subject: string;
  email: string;
  email_verified: number;
  first_name: string;
  last_name: string;
  full_name: string;
  return_to: string | null;
  expires_at: number;
}

/**
 * Issue #26: "second_factor" counts wrong second-factor codes per account, apart from its passwords; "factor_total"
 * counts them across blocks, until a right one (the cap of NIST SP 800-63B §5.2.2).
 */
export type AttemptScope = "account" | "device" | "second_factor" | "factor_total";

/** Password attempts of one allowance (docs/decisions.md "Sign-in throttling"); each scope its own key space. */
export interface LoginThrottleTable {
  scope: AttemptScope;
  /** "account": SHA-256 of the normalised address, known or not (so a block reveals no account); "device": of the device id. */
  key: string;
  /** SHA-256 of the normalised address the allowance belongs to. */
  account_key: string;
  /** Attempts counted since the last right password or the end of the last block; counted before verifying. */
  attempts: number;
  blocked_until: number | null;
  updated_at: number;
}

/** Recovery mails per address in a fixed window, whoever asks (docs/decisions.md "What recovery mails"). */
export interface RecoveryQuotaTable {
  /** SHA-256 of the normalised address. */
  key: string;
  mails: number;
  window_ends: number;
}

/** One fixed window of requests to one rate-limited call from one client address. */
export interface RateLimitsTable {
  /** SHA-256 of the call and the client address. */
  key: string;
  hits: number;
  window_ends: number;
}

export type CodePurpose = "activation" | "password_reset" | "password_setup" | "deletion";

export interface CodesTable {
  id: string;
  user_id: string;
  purpose: CodePurpose;
  code_hash: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  /** Set when a newer code of the same purpose retired this one before it was used. */
  superseded_at: number | null;
}

export interface OutboxTable {
  id: string;
  user_id: string | null;
  recipient: string;
  kind: string;
  subject: string;
  text_body: string;
  html_body: string;
  status: "pending" | "sent" | "failed";
  attempts: number;
  next_attempt_at: number;
  /** Lease of the worker sending it, so two instances never send the same mail. */
  claimed_until: number | null;
  last_error: string | null;
  created_at: number;
  sent_at: number | null;
}

export interface CaptchasTable {
  id: string;
  answer_hash: string;
  expires_at: number;
}

export interface SpentTokensTable {
  token_hash: string;
  expires_at: number;
}

/** Security events (issue #5). After an account's deletion its rows keep no user id, address or agent. */
export interface AuditTable {
  id: string;
  at: number;
  event: string;
  user_id: string | null;
  ip: string | null;
  user_agent: string | null;
  /** Short, non-secret context (a refusal's reason, the admin command). */
  detail: string | null;
  /** Issue #27: the trusted country header's code of the request; null when unknown or recorded before. */
  country: string | null;
}

/** One model of the OpenID Connect provider (its adapter's row, store/oidc.ts). */
export interface OidcModelsTable {
  model: string;
  id: string;
  payload: string;
  uid: string | null;
  grant_id: string | null;
  user_code: string | null;
  gateway_session_id: string | null;
  expires_at: number | null;
  consumed_at: number | null;
  /** Issue #27: a grant's account (only grants carry it), and when the row was last written. */
  account_id: string | null;
  issued_at: number | null;
}

/** Issue #27: a browser (device id of the device cookie) that has signed in to the account. */
export interface KnownBrowsersTable {
  user_id: string;
  device_id: string;
  first_seen_at: number;
}

export type OidcKeyState = "next" | "current" | "previous";

/** The provider's signing keys (oidc/keys.ts): private parts encrypted at rest. */
export interface OidcKeysTable {
  kid: string;
  state: OidcKeyState;
  public_jwk: string;
  private_jwk: string;
  created_at: number;
  updated_at: number;
}

/** Issue #12: a product's trial, started once by an account (store/trials.ts). */
export interface TrialsTable {
  user_id: string;
  product_code: string;
  /** The brand whose site the trial was started on. */
  brand: string;
  started_at: number;
}

/** Issue #13: a DiscourseConnect nonce we answered, by its SHA-256, refused again until it expires. */
export interface DiscourseNoncesTable {
  nonce_hash: string;
  expires_at: number;
}

/** Issue #13: a durable outbound call other than mail (store/jobs.ts), leased and retried as the outbox is. */
export interface JobsTable {
  id: string;
  kind: string;
  payload: string;
  status: "pending" | "done" | "failed";
  attempts: number;
  next_attempt_at: number;
  /** Lease of the worker running it, so two nodes never run the same job. */
  claimed_until: number | null;
  /** Issue #28: random per claim; the lease's renewals and the finish name it (store/jobs.ts). */
  lease_token: string | null;
  last_error: string | null;
  created_at: number;
  done_at: number | null;
}

export interface Database {
  users: UsersTable;
  sessions: SessionsTable;
  known_browsers: KnownBrowsersTable;
  sign_in_attempts: SignInAttemptsTable;
  session_links: SessionLinksTable;
  external_identities: ExternalIdentitiesTable;
  federation_flows: FederationFlowsTable;
  federation_pending: FederationPendingTable;
  login_throttle: LoginThrottleTable;
  recovery_quota: RecoveryQuotaTable;
  codes: CodesTable;
  outbox: OutboxTable;
  captchas: CaptchasTable;
  spent_tokens: SpentTokensTable;
  audit: AuditTable;
  rate_limits: RateLimitsTable;
  oidc_models: OidcModelsTable;
  oidc_keys: OidcKeysTable;
  trials: TrialsTable;
  discourse_nonces: DiscourseNoncesTable;
  jobs: JobsTable;
  totp_factors: TotpFactorsTable;
  recovery_codes: RecoveryCodesTable;
  passkeys: PasskeysTable;
  webauthn_challenges: WebauthnChallengesTable;
  remembered_browsers: RememberedBrowsersTable;
}
export type JobRow = Selectable<JobsTable>;

export type AuditRow = Selectable<AuditTable>;
export type OidcModelRow = Selectable<OidcModelsTable>;
export type OidcKeyRow = Selectable<OidcKeysTable>;

export type CodeRow = Selectable<CodesTable>;
export type OutboxRow = Selectable<OutboxTable>;

export type UserRow = Selectable<UsersTable>;
export type FederationFlowRow = Selectable<FederationFlowsTable>;
export type FederationPendingRow = Selectable<FederationPendingTable>;
export type NewUserRow = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type SessionRow = Selectable<SessionsTable>;
export type NewSessionRow = Insertable<SessionsTable>;
export type SignInAttemptRow = Selectable<SignInAttemptsTable>;
export type SessionLinkRow = Selectable<SessionLinksTable>;
export type ExternalIdentityRow = Selectable<ExternalIdentitiesTable>;
export type TrialRow = Selectable<TrialsTable>;
export type TotpFactorRow = Selectable<TotpFactorsTable>;
export type RecoveryCodeRow = Selectable<RecoveryCodesTable>;
export type PasskeyRow = Selectable<PasskeysTable>;
export type WebauthnChallengeRow = Selectable<WebauthnChallengesTable>;
export type ThrottleRow = Selectable<LoginThrottleTable>;
