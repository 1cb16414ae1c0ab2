/** Business constants and limits of spec §9, plus the security constants we chose (docs/decisions.md). */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export const REQUEST_TIMEOUT_MS = 30 * SECOND;
/**
 * The local licence helper of spec §7/§9 (issue #13): the desktop program listening on the person's own machine.
 * The browser calls `GET <url>/activate?access_token=…&noredirect=1` without credentials; each try gives up after
 * `timeoutMs`, and a failed try is retried `retries` more times, `retryDelayMs` apart (5 tries in all).
 */
export const LICENCE_HELPER = {
  port: 30304,
  defaultUrl: "http://localhost:30304",
  activatePath: "/activate",
  timeoutMs: 10 * SECOND,
  retries: 4,
  retryDelayMs: 2 * SECOND,
} as const;

export const REDIRECT_DELAY_MS = {
  registerSocial: 3 * SECOND,
  setupPassword: 2 * SECOND,
  changePassword: 2 * SECOND,
} as const;

export const PASSWORD_LIMITS = {
  loginMin: 6,
  registerMin: 8,
  registerMax: 64,
  newMin: 12,
  newMax: 64,
} as const;

/**
 * What makes a password "easy to guess" beyond its length (ASVS 6.2.4, 6.2.11; docs/decisions.md "Password
 * policy"). Registration and every new password refuse breached passwords and their trivial variants, passwords
 * built on a context word, and degenerate ones.
 */
export const PASSWORD_POLICY = {
  /** The first this many entries of the frequency-ranked breached-password list are refused. */
  breachedListSize: 10_000,
  /** A core left after stripping digits and symbols is compared with the list only from this length on. */
  coreMin: 4,
  /** Context words (names, e-mail parts, brand and product names) shorter than this are not looked for. */
  contextWordMin: 4,
  /** Fewer letters than this left over once the context words are removed: the password is that word. */
  contextRemainderMin: 4,
  /** A password that repeats a unit shorter than this is degenerate ("abcabcabc", "121212", "aaaaaaaa"). */
  repeatedUnitMax: PASSWORD_LIMITS.registerMin - 1,
} as const;

export const NAME_LIMITS = { firstNameMax: 72, lastNameMax: 53 } as const;
/** RFC 5321 caps a forward path at 256 octets including the brackets, so an address holds at most 254. */
export const EMAIL_MAX = 254;
export const CAPTCHA_ANSWER_MAX = 6;
export const REGISTRATION_STEPS = { first: 1, last: 2 } as const;

export const DEFAULT_COUNTRY = "ZZ";
export const TRIAL_ACTIVATION_TTL_MS = 24 * HOUR;
/** Activation links (issue #3): 24 hours, like the trial's of spec §9. */
export const ACTIVATION_TTL_MS = 24 * HOUR;
/** Password links (issue #4): a reset link lives an hour, an invitation's setup link a week. */
export const PASSWORD_RESET_TTL_MS = HOUR;
export const PASSWORD_SETUP_TTL_MS = 7 * 24 * HOUR;
/** Account deletion is confirmed by a mailed link valid one hour (issue #5). */
export const DELETION_TTL_MS = HOUR;
/** Recovery mail per address: at most this many an hour, whoever asks (no mail bombing); the answer never changes. */
export const RECOVERY_MAILS_PER_ADDRESS = { max: 3, windowMs: HOUR } as const;
/** An image captcha must be answered within ten minutes, once. */
export const CAPTCHA_TTL_MS = 10 * MINUTE;
/** Proof-of-work challenges expire after five minutes; a solved one is accepted once. */
export const BOT_CHECK_TTL_MS = 5 * MINUTE;

/** Mail outbox: retry with exponential back-off from 10 s up to an hour, for about two days, then give up. */
export const MAIL_RETRY = { firstDelayMs: 10 * SECOND, maxDelayMs: HOUR, maxAttempts: 60 } as const;

/** How long delivered or given-up mail stays in the outbox (recipient, subject, status; bodies already emptied). */
export const MAIL_RETENTION_MS = 30 * DAY;

/** Per client address: sign-in attempts allowed per window, whatever the account. */
export const LOGIN_RATE_PER_ADDRESS = { max: 30, windowMs: 5 * MINUTE } as const;

/**
 * Per client address, each limited call counted apart (ASVS 2.2.1 / OWASP automated threats): sign-ins, existence
 * checks, sign-ups, resends, codes. An endpoint names its limit here (`api/index.ts`).
 */
export const RATE_LIMITS = {
  /** Sign-in attempts whatever the account (ASVS 6.3.1 / OWASP credential stuffing cheat sheet). */
  login: LOGIN_RATE_PER_ADDRESS,
  registerValidate: { max: 30, windowMs: 5 * MINUTE },
  register: { max: 10, windowMs: 15 * MINUTE },
  resendActivation: { max: 5, windowMs: 15 * MINUTE },
  activate: { max: 30, windowMs: 5 * MINUTE },
  captcha: { max: 30, windowMs: 5 * MINUTE },
  recover: { max: 10, windowMs: 15 * MINUTE },
  codeCheck: { max: 30, windowMs: 5 * MINUTE },
  setPassword: { max: 10, windowMs: 15 * MINUTE },
  deletion: { max: 5, windowMs: 15 * MINUTE },
  /** Set-up links an account without a password asks for on Edit account (issue #25): a mail each, as a resend. */
  setupLink: { max: 5, windowMs: 15 * MINUTE },
  /** Linked-session round trips (issue #10 §5): a few per page load at most; bounds the codes a client can make. */
  sessionLink: { max: 60, windowMs: 5 * MINUTE },
  /** Tokens minted for legacy sites (issue #10 §3): one per visit to such a site. */
  legacyToken: { max: 120, windowMs: 5 * MINUTE },
  /** Social and corporate sign-ins started and finished (issue #11): each is a round trip to a provider. */
  federation: { max: 60, windowMs: 5 * MINUTE },
  /** Trials started by a signed-in visitor (issue #12): one click each; above the cap of trials an account may start. */
  trialStart: { max: 30, windowMs: 15 * MINUTE },
  /** DiscourseConnect answers (issue #13): one per visit to the forum's sign-in. */
  discourseSso: { max: 60, windowMs: 5 * MINUTE },
  /** API tokens minted for the studio's licence helper (issue #13): one per studio sign-in. */
  studioToken: { max: 60, windowMs: 5 * MINUTE },
  /**
   * Issue #26: second-factor codes and step-up proofs per client address; wrong codes are also counted per account
   * (accounts/throttle.ts), which is what stops guessing six digits.
   */
  secondFactor: { max: 30, windowMs: 5 * MINUTE },
  /** Issue #26: passkey ceremonies started and finished (a sign-in page may start one for autofill on every load). */
  passkey: { max: 120, windowMs: 5 * MINUTE },
  /** Issue #26: second factors added, renamed or removed and recovery codes made. */
  factors: { max: 30, windowMs: 15 * MINUTE },
  /** Issue #27: the security page's lists (sessions, apps, activity), each page of each. */
  securityRead: { max: 120, windowMs: 5 * MINUTE },
  /** Issue #27: sessions ended, "Sign out everywhere else", apps' access removed. */
  securityChange: { max: 30, windowMs: 5 * MINUTE },
  /**
   * Issue #28: sign-ins to a site or app finished (each may create a grant and an offline refresh token). A person
   * finishes one per app they open; a page of sites opening at once is a handful.
   */
  serviceLoginFinish: { max: 60, windowMs: 5 * MINUTE },
} as const;
/**
 * Issue #28: sign-ins to sites and apps one account may finish a day, from any address: someone holding the
 * password could otherwise mint tens of thousands of offline grants from many addresses (ASVS 2.4.1). A person
 * opening every app they use many times a day stays far below.
 */
export const SERVICE_LOGIN_FINISH_PER_ACCOUNT = { max: 200, windowMs: 24 * 60 * MINUTE } as const;
export type RateLimitName = keyof typeof RATE_LIMITS;
/**
 * Issue #11: a round trip to an identity provider must come back within this (a sign-in there may include a
 * forgotten password); a provider's answer then waits this long for the person's details or password.
 */
export const FEDERATION_FLOW_TTL_MS = 15 * MINUTE;
export const FEDERATION_PENDING_TTL_MS = 30 * MINUTE;
export const CLOUD_PROMO_CREDITS = 20;
/** Spec §7: the default trial product code is fixed; its value is not shown, we chose this one. */
export const DEFAULT_TRIAL_PRODUCT_CODE = "TRIAL-DEFAULT";
/** Issue #12: a product code is a short token (letters, digits, `.`, `_`, `-`), as product sites spell them. */
export const PRODUCT_CODE_MAX = 64;
/**
 * Issue #12: the trials one account may start, one a product. Product codes are not a closed list (product sites
 * name them), so the cap bounds what one account can write.
 */
export const TRIALS_PER_ACCOUNT_MAX = 20;

/** Session lifetime (ASVS 3.3.1/3.3.2): idle timeout and absolute lifetime. */
export const SESSION_IDLE_MS = 2 * HOUR;
export const SESSION_ABSOLUTE_MS = 7 * 24 * HOUR;

/**
 * Lifetimes of what the OpenID Connect provider issues, in seconds as the protocol counts them (issue #10 §2;
 * docs/protocols.md "OpenID Connect provider"). Access and ID tokens are short because a JWT access token cannot be called
 * back; a code is used within seconds (RFC 9700 §4.5 asks for a short life); a refresh token of a desktop app
 * rotates at every use and lives at most as long as a gateway session when it is bound to one. The provider's
 * session and grant never outlive a gateway session (SESSION_ABSOLUTE_MS).
 */
export const OIDC_TTL_S = {
  accessToken: HOUR / SECOND,
  idToken: HOUR / SECOND,
  authorizationCode: MINUTE / SECOND,
  /** A sign-in on our screens may take a while (a forgotten password, a second tab). */
  interaction: HOUR / SECOND,
  refreshToken: (30 * DAY) / SECOND,
  session: SESSION_ABSOLUTE_MS / SECOND,
  grant: (30 * DAY) / SECOND,
} as const;
/**
 * The brands' API as a resource server (RFC 8707): an access token asked for it is a JWT (RFC 9068) with this
 * audience, which the API verifies with the provider's JWKS alone; the scope names access to it.
 */
export const OIDC_API_RESOURCE = "urn:gatehouse:api";
export const OIDC_API_SCOPE = "api";
/**
 * Issue #13: the licence helper's token is for licence activation alone — its own audience and scope, five minutes —
 * since it travels through the address bar to whatever listens on the person's loopback port.
 */
export const LICENCE_RESOURCE = "urn:gatehouse:licence";
export const LICENCE_SCOPE = "licence:activate";
export const LICENCE_TOKEN_TTL_S = 5 * 60;
/**
 * The legacy flow of spec §4 (issue #10 §3): the web app is itself a public client of the provider ("gatehouse",
 * code + PKCE, its callback on every brand host), and hands the access token it gets to a legacy site's return
 * address. The state cookie is the spec's (§9: Secure over https, SameSite=Lax); it lives as long as a sign-in may
 * take and is sent only to the callback.
 */
export const WEB_CLIENT_ID = "gatehouse";
export const LEGACY_STATE_COOKIE = "gatehouse_legacy_state";
export const LEGACY_STATE_TTL_S = (15 * MINUTE) / SECOND;
/**
 * Linked sessions across brand hosts (issue #10 §5): a link code lives a minute and is used once; the receiving
 * host's state cookie as long; and after a round trip that brought no session (a visitor everywhere), the host does
 * not ask again for two minutes, so a visitor never loops and a sign-in elsewhere is seen soon after.
 */
export const SESSION_LINK_CODE_TTL_MS = MINUTE;
export const SESSION_LINK_STATE_COOKIE = "gh_link_state";
export const SESSION_LINK_MARKER_COOKIE = "gatehouse_link_checked";
export const SESSION_LINK_MARKER_TTL_S = (2 * MINUTE) / SECOND;
/** A back-channel logout token is valid this long (OIDC Back-Channel Logout 1.0 §2.4: a short time). */
export const OIDC_LOGOUT_TOKEN_TTL_S = (2 * MINUTE) / SECOND;
/** How long the gateway waits for a client's back-channel logout endpoint before giving up on it. */
export const OIDC_BACKCHANNEL_TIMEOUT_MS = 5 * SECOND;

/**
 * Sign-in throttling (ASVS 6.3.1 / 6.1.1): each allowance — the one every unknown browser of an account
 * shares, and each trusted browser's own (device cookie) — refuses passwords for LOCKOUT_WINDOW_MS after
 * LOCKOUT_THRESHOLD consecutive wrong ones; attempts during a block do not extend it (docs/decisions.md).
 */
export const LOCKOUT_THRESHOLD = 5;
export const LOCKOUT_WINDOW_MS = 15 * MINUTE;
/** How long a browser that signed in stays trusted for that account (OWASP device cookies). */
export const DEVICE_TRUST_MS = 365 * DAY;

/**
 * Issue #13, DiscourseConnect. The forum's payload is a short query (a nonce and its return address), so its
 * Base64 stays well under these; the signature is 64 hex digits. A nonce answered once is refused for a day, as
 * Discourse itself refuses a used one for 24 hours. Discourse requires a shared secret of at least 10 characters.
 */
export const DISCOURSE_SSO_MAX = 4096;
export const DISCOURSE_SIG_MAX = 128;
export const DISCOURSE_NONCE_TTL_MS = 24 * HOUR;
export const DISCOURSE_SECRET_MIN = 10;

/**
 * How long a sign-in attempt waits for the steps it owes (issue #24): a password change or the profile, done in
 * one sitting; after that the person signs in again. Short, as an unfinished sign-in is state an attacker wants.
 */
export const SIGN_IN_ATTEMPT_TTL_MS = 15 * MINUTE;

/** Issue #26: a sensitive call (password, e-mail, deletion, a factor added or removed) needs a proof this recent. */
export const STEP_UP_MS = 10 * MINUTE;
/** Issue #26: "Remember this browser for 30 days" skips the second factor on that browser for that account. */
export const REMEMBER_BROWSER_MS = 30 * DAY;
/** Issue #26: recovery codes in a set, shown once; each works once. */
export const RECOVERY_CODES_COUNT = 10;
/** Issue #26: RFC 6238 as every authenticator app reads an `otpauth://` URI: SHA-1, 6 digits, 30 s, ±1 step. */
export const TOTP = { algorithm: "SHA1", digits: 6, periodS: 30, window: 1, secretBytes: 20 } as const;
/**
 * Issue #26: consecutive wrong second-factor codes an account may have in all, across the short blocks (NIST SP
 * 800-63B §5.2.2: at most 100); then codes are refused for SECOND_FACTOR_FAILURES_BLOCK_MS, or until support resets
 * the factors (`factors:reset`). A right code starts the count again.
 */
export const SECOND_FACTOR_FAILURES_MAX = 100;
export const SECOND_FACTOR_FAILURES_BLOCK_MS = 30 * DAY;
/** Issue #26: a WebAuthn ceremony (its challenge) must end within this. */
export const WEBAUTHN_CHALLENGE_TTL_MS = 5 * MINUTE;
/** Issue #26: a passkey's name, as the person gives it. */
export const PASSKEY_NAME_MAX = 64;

/** Issue #27: entries per page of the security page's lists (sessions, apps, activity). */
export const SECURITY_PAGE_SIZE = 20;
