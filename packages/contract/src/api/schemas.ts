import { z } from "zod/mini";
import { CAPTCHA_ANSWER_MAX, DISCOURSE_SIG_MAX, DISCOURSE_SSO_MAX, EMAIL_MAX, PASSKEY_NAME_MAX } from "../constants.ts";
import { MARKETING_SOURCES, PLATFORMS, ROLES } from "../options.ts";
import {
  countryRule,
  emailRule,
  firstNameRule,
  lastNameRule,
  loginEmailRule,
  loginPasswordRule,
  newPasswordRule,
  oldPasswordRule,
  productCodeRule,
  registerPasswordRule,
} from "../rules.ts";
import { NEXT_KINDS, OWED_STEPS, SOCIAL_PLATFORMS } from "../sign-in.ts";
import { normalizeText } from "../text.ts";

/** Answer of endpoints whose answer the spec does not show: an empty JSON object. */
export const Empty = z.object({});

const returnTo = z.optional(z.string().check(z.maxLength(2048)));
const short = z.optional(z.string().check(z.maxLength(256)));
const code = z.string().check(z.minLength(1, { error: "validation.code.required" }), z.maxLength(512));

export const SessionAnswer = z.object({
  ID: z.string(),
  UserGUID: z.uuid(),
  Email: z.string(),
  FirstName: z.string(),
  LastName: z.string(),
  /** Upper-cased country code of the visitor, from the proxy's country header; ZZ when unknown. */
  Location: z.string(),
  Linked: z.boolean(),
});

/** Our addition (issue #24): where the person goes next, decided by the server (sign-in.ts NEXT_KINDS). */
export const Next = z.object({ kind: z.enum(NEXT_KINDS), url: z.string() });

/** Our addition (issue #24): the browser's unfinished sign-in, and the step it owes. */
export const SignInAttemptAnswer = z.object({
  owes: z.enum(OWED_STEPS),
  next: Next,
  /** Issue #26: while it owes the second factor, the kinds of factor the account has (the screen offers those). */
  factors: z.optional(z.object({ totp: z.boolean(), passkeys: z.boolean(), recoveryCodes: z.boolean() })),
});

/** Our addition (issue #24): the answer of an owed step's call; `next` when it moved a sign-in attempt on. */
export const StepAnswer = z.object({ next: z.optional(Next) });

export const Country = z.object({ code: z.string(), name: z.string() });
export const CountriesAnswer = z.array(Country);

export const LoginBody = z.object({
  email: loginEmailRule,
  password: loginPasswordRule,
  isTrial: z.optional(z.boolean()),
  isEnscapeTrial: z.optional(z.boolean()),
  /** Our addition (issue #12): the trial a trial-mode sign-in starts; TRIAL_PRODUCT_CODE when absent. */
  productCode: z.optional(productCodeRule),
  /** Our addition (issue #24): where the sign-in was going (the page's return_to), for the answer's `next`. */
  returnTo,
});
/** Spec §7's two flags, and our `next` (issue #24), which the web app follows. */
export const LoginAnswer = z.object({
  RequiredPasswordUpdate: z.boolean(),
  RequiredProfileUpdate: z.boolean(),
  next: Next,
});

export const LoginModesBody = z.object({ username: loginEmailRule });
export const LoginModesAnswer = z.object({ oidc: z.boolean(), password: z.boolean() });

export const LogoutBody = z.object({ ua: z.optional(z.string().check(z.maxLength(64))) });

/**
 * One field to check on blur. With `password`, the password is checked (length, then the password policy) and
 * `email`, `firstName` and `lastName`, when sent with it, are only its context words (ASVS 6.2.11).
 */
export const RegisterValidateBody = z
  .object({
    email: z.optional(z.string().check(z.maxLength(EMAIL_MAX * 2))),
    firstName: z.optional(z.string().check(z.maxLength(512))),
    lastName: z.optional(z.string().check(z.maxLength(512))),
    countryCode: z.optional(z.string().check(z.maxLength(16))),
    password: z.optional(z.string().check(z.maxLength(512))),
  })
  .check(
    z.refine((body) => Object.values(body).some((value) => value !== undefined), { error: "validation.required" }),
  );
export const RegisterValidateAnswer = z.object({
  status: z.enum(["ok", "invalid", "conflict"]),
  /** The e-mail's domain signs in only through its company's identity provider. */
  corporate: z.optional(z.boolean()),
  message: z.optional(z.string()),
});

export const RegisterBody = z.object({
  captchaGUID: z.optional(z.string().check(z.maxLength(256))),
  captchaAnswer: z.optional(z.string().check(z.maxLength(CAPTCHA_ANSWER_MAX * 4))),
  /** Our addition: the bot-check token of visitors outside CN (spec §2 "Elsewhere a bot-check token is used"). */
  botCheck: z.optional(z.string().check(z.maxLength(8192))),
  email: emailRule,
  password: registerPasswordRule,
  firstName: firstNameRule,
  lastName: lastNameRule,
  countryCode: countryRule,
  newsletterSubscription: z._default(z.boolean(), false),
  returnTo,
  utmMedium: short,
  utmSource: short,
  utmCampaign: short,
  httpReferer: z.optional(z.string().check(z.maxLength(2048))),
  productCode: z.optional(productCodeRule),
  isTrial: z.optional(z.boolean()),
  isEnscapeTrial: z.optional(z.boolean()),
});

export const CaptchaAnswer = z.object({ id: z.string(), image: z.string() });
/** An ALTCHA v2 challenge, handed to the widget as it is. */
export const BotChallengeAnswer = z.looseObject({ parameters: z.record(z.string(), z.unknown()) });

export const SocialPlatformField = z.enum(SOCIAL_PLATFORMS);
/**
 * Our addition: `prompt` asks the provider to show its sign-in again (`login`) or its account chooser
 * (`select_account`, the social registration's Change link).
 */
const idpPrompt = z.optional(z.enum(["login", "select_account"]));
export const SocialLoginBody = z.object({
  platform: SocialPlatformField,
  continue: returnTo,
  auto_register: z.optional(z.boolean()),
  prompt: idpPrompt,
});
export const RedirectAnswer = z.object({ redirect_to: z.string() });

/**
 * The provider's answer at our callback (RFC 6749 §4.1.2, RFC 9207 `iss`): every field optional and checked by the
 * relying party, so a malformed answer lands on the error page rather than a JSON error in a browser tab.
 */
const callbackParam = z.optional(z.string().check(z.maxLength(4096)));
export const FederationCallbackQuery = z.looseObject({
  code: callbackParam,
  state: callbackParam,
  iss: callbackParam,
  error: callbackParam,
  error_description: callbackParam,
});
export const FederationCallbackParams = z.object({ provider: z.string().check(z.maxLength(64)) });

/**
 * Our addition: the browser's social sign-in that waits for a new account's details (`register`) or for the
 * existing account's password (`link`), as the server holds it; the screens show this, never only their query.
 */
export const SocialPendingAnswer = z.object({
  kind: z.enum(["register", "link"]),
  platform: SocialPlatformField,
  email: z.string(),
  /** The provider vouches for the address (Facebook never does): the account needs no activation mail. */
  emailVerified: z.boolean(),
  firstName: z.string(),
  lastName: z.string(),
  fullName: z.string(),
  returnTo: z.optional(z.string()),
});

export const SocialRegisterBody = z.object({
  countryCode: countryRule,
  newsletterSubscription: z._default(z.boolean(), false),
  firstName: firstNameRule,
  lastName: lastNameRule,
});
/** Spec §3 "social login data": `activation` is true when the address still has to be confirmed by mail. */
export const SocialRegisterAnswer = z.object({
  email: z.string(),
  fullName: z.string(),
  activation: z.boolean(),
  /** Our addition (issue #24): where a registration that signed the person in goes on. */
  next: z.optional(Next),
});
export const SocialLinkBody = z.object({ email: emailRule, password: loginPasswordRule, returnTo });
/** `origin`: where the person goes after signing in (the corporate page's return_to). `prompt`: our addition. */
export const FederatedLoginBody = z.object({ email: emailRule, origin: returnTo, prompt: idpPrompt });

/** Our addition: an identity at a provider linked to the account (Edit account lists them). */
export const LinkedIdentity = z.object({
  provider: z.string(),
  /** The provider's display name (Google, Facebook, Trimble, or the company's). */
  name: z.string(),
  email: z.nullable(z.string()),
  linkedAt: z.number(),
});
export const IdentitiesAnswer = z.object({
  identities: z.array(LinkedIdentity),
  /** The account has a password it can sign in with: then every identity may be removed. */
  hasPassword: z.boolean(),
});
export const IdentityParams = z.object({ provider: z.string().check(z.maxLength(64)) });

export const ProfileAnswer = z.object({
  email: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  countryCode: z.string(),
  customerNumber: z.string(),
  passwordAllowed: z.boolean(),
});
export const ProfileBody = z.object({
  email: z.optional(z.string()),
  firstName: firstNameRule,
  lastName: lastNameRule,
  countryCode: countryRule,
  customerNumber: z.optional(z.string()),
  passwordAllowed: z.optional(z.boolean()),
});

export const RecoverBody = z.object({ email: emailRule, returnTo });
export const CODE_STATUSES = ["valid", "invalid", "expired", "used", "superseded"] as const;
/** A code that cannot be used carries a `guid` for the page's "Ref:" (spec §2), logged with its reason. */
export const CodeStatusAnswer = z.object({
  status: z.enum(CODE_STATUSES),
  guid: z.optional(z.string()),
  /**
   * Our addition (issue #25): a usable set-up code asks the survey only of an invitation; an account that exists
   * without a password and asked for the link from Edit account is not surveyed again.
   */
  survey: z.optional(z.boolean()),
});
/** The mailed code in a path (`/account/recover/{code}`). */
export const CodeParams = z.object({ code });
export const ResetPasswordBody = z.object({ password: newPasswordRule, code });

const choice = (options: readonly string[]) =>
  z.string().check(
    z.minLength(1, { error: "validation.required" }),
    z.refine((value) => options.includes(value), { error: "validation.required" }),
  );
/**
 * A survey text's bounds have no words of their own: the form shows what the server answers for them, the
 * generic invalid-request text, rather than zod's untranslated default.
 */
const SURVEY_TEXT_TOO_LONG = { error: "errors.invalid_request" };
const other = z.optional(
  z.pipe(z.pipe(z.string(), z.transform(normalizeText)), z.string().check(z.maxLength(256, SURVEY_TEXT_TOO_LONG))),
);

/** Spec §5: the three selects are required; each *Other text is required when Other is chosen. */
export const MarketingInfo = z
  .object({
    marketingSource: choice(MARKETING_SOURCES),
    marketingSourceOther: other,
    platformOfInterest: choice(PLATFORMS),
    platformOfInterestOther: other,
    role: choice(ROLES),
    roleOther: other,
    phoneNumber: z.optional(
      z.pipe(
        z.pipe(z.string(), z.transform(normalizeText)),
        z
          .string()
          .check(z.maxLength(32, SURVEY_TEXT_TOO_LONG), z.regex(/^[+\d\s().-]*$/u, { error: "validation.phone" })),
      ),
    ),
  })
  .check(
    z.superRefine((info, ctx) => {
      for (const [select, text] of [
        ["marketingSource", "marketingSourceOther"],
        ["platformOfInterest", "platformOfInterestOther"],
        ["role", "roleOther"],
      ] as const) {
        if (info[select] === "Other" && !info[text])
          ctx.addIssue({ code: "custom", path: [text], message: "validation.required" });
      }
    }),
  );
/** The survey is required of an invitation and absent for an account adding a password (issue #25). */
export const SetupPasswordBody = z.object({
  password: newPasswordRule,
  code,
  marketingInfo: z.optional(MarketingInfo),
});
/** Our addition (issue #24): where the new user goes on (spec §4: the customer portal, after any owed step). */
export const SetupPasswordAnswer = z.object({ next: Next });
export const ChangePasswordBody = z.object({ oldPassword: oldPasswordRule, password: newPasswordRule });
export const ActivateBody = z.object({ activationCode: code });
/** The activation link's sign-in: its code and, our addition (issue #24), the link's return_to. */
export const ActivationLoginBody = z.object({ activationCode: code, returnTo });

/** Issue #12: a trial, one a product and account, from when it started. */
export const TrialAnswer = z.object({
  productCode: z.string(),
  /** ISO 8601. */
  startedAt: z.string(),
  /** Started by this call; false when the account had started this product's trial before. */
  started: z.boolean(),
});
/** Our addition (issue #12): the trial the activation started, when the sign-up was a trial's; else null. */
export const ActivationLoginAnswer = z.object({ Trial: z.nullable(TrialAnswer), next: Next });
/** Our addition (issue #12): a signed-in visitor confirms and starts a trial (spec §2 "Confirm your email"). */
export const TrialStartBody = z.object({
  productCode: z.optional(productCodeRule),
  isTrial: z.optional(z.boolean()),
  isEnscapeTrial: z.optional(z.boolean()),
});
export const ResendActivationBody = z.object({ email: emailRule, returnTo });
export const DeleteBody = z.object({ deletionCode: code });
/**
 * Issue #25: a deletion link's state, told on the screen's load without using it: a code's state, or `deleted` when
 * the link did its work and the account is gone.
 */
export const DeletionStatusAnswer = z.object({
  status: z.enum([...CODE_STATUSES, "deleted"]),
  guid: z.optional(z.string()),
});
/** Our addition (issue #5): the password re-confirms the person; accounts without one confirm by the mail alone. */
export const DeleteRequestBody = z.object({ password: z.optional(z.string().check(z.maxLength(256))) });
export const DiscourseAnswer = z.object({ loginUrl: z.string() });
/**
 * Issue #13: the DiscourseConnect request as the forum sent it (`sso`: Base64 of `nonce=…&return_sso_url=…`,
 * `sig`: hex HMAC-SHA256 of it). Bounded; the server checks the signature and the payload itself.
 */
export const DiscourseQuery = z.object({
  sso: z.string().check(z.minLength(1), z.maxLength(DISCOURSE_SSO_MAX)),
  sig: z.string().check(z.minLength(1), z.maxLength(DISCOURSE_SIG_MAX)),
});

/** Issue #13: whose licence the completion page activates. */
export const StudioAccountAnswer = z.object({ name: z.string(), email: z.string() });

/**
 * Issue #26: a second factor's code as typed: an authenticator app's six digits or a recovery code (spaces and
 * hyphens are the person's; the server drops them before it compares).
 */
// An empty field is "Required field." (validation.code.required speaks of a link's missing code).
const factorCode = z.string().check(z.minLength(1, { error: "validation.required" }), z.maxLength(64));
export const SECOND_FACTOR_METHODS = ["totp", "recovery_code"] as const;

/** Issue #26: one passkey of the account, as the security section lists it. */
export const PasskeySummary = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.number(),
  lastUsedAt: z.nullable(z.number()),
  /** Synced to the person's other devices by their password manager (WebAuthn's backup state). */
  backedUp: z.boolean(),
});

/** Issue #26: the account's "Sign-in and security" section. */
export const SecurityAnswer = z.object({
  hasPassword: z.boolean(),
  totp: z.boolean(),
  recoveryCodesLeft: z.number(),
  passkeys: z.array(PasskeySummary),
  /** Until when the session's last proof counts for sensitive changes (STEP_UP_MS after it); null: it does not. */
  freshUntil: z.nullable(z.number()),
});

/** Issue #26: a new authenticator app's secret, shown once as a QR code of `uri` and as text. */
export const TotpStartAnswer = z.object({ secret: z.string(), uri: z.string() });
export const TotpConfirmBody = z.object({ code: factorCode });
/** The recovery codes, shown once: made when the first second factor is turned on, or made anew. */
export const RecoveryCodesAnswer = z.object({ recoveryCodes: z.array(z.string()) });
export const TotpConfirmAnswer = z.object({ recoveryCodes: z.optional(z.array(z.string())) });

/** Issue #26: the second factor a sign-in attempt owes, by code; `remember` skips it on this browser for 30 days. */
export const SecondFactorBody = z.object({
  method: z.enum(SECOND_FACTOR_METHODS),
  code: factorCode,
  remember: z.optional(z.boolean()),
});
export const SecondFactorAnswer = z.object({ next: Next, recoveryCodesLeft: z.optional(z.number()) });

/**
 * Issue #26, step-up: a fresh proof in a signed-in session: the password (when the account has one) and, where the
 * account has a second factor, its code. A passkey's step-up goes through the passkey endpoints.
 */
export const ReauthenticateBody = z.object({
  password: z.optional(loginPasswordRule),
  method: z.optional(z.enum(SECOND_FACTOR_METHODS)),
  code: z.optional(factorCode),
});
export const ReauthenticateAnswer = z.object({ freshUntil: z.number() });

/*
 * Issue #26, passkeys: the WebAuthn Level 3 JSON forms (PublicKeyCredential*OptionsJSON, RegistrationResponseJSON,
 * AuthenticationResponseJSON) that @simplewebauthn/server makes and reads and @simplewebauthn/browser hands over,
 * bounded so no input reaches the verifier unchecked.
 */
const base64url = (max: number) => z.string().check(z.minLength(1), z.maxLength(max), z.regex(/^[A-Za-z0-9_-]+$/u));
/** A credential id (the spec allows up to 1023 bytes: 1364 base64url characters). */
const credentialId = base64url(1400);
const TRANSPORTS = ["ble", "cable", "hybrid", "internal", "nfc", "smart-card", "usb"] as const;
const transports = z.optional(z.array(z.enum(TRANSPORTS)).check(z.maxLength(TRANSPORTS.length)));
const credentialDescriptor = z.object({ id: credentialId, type: z.literal("public-key"), transports });
const userVerification = z.optional(z.enum(["required", "preferred", "discouraged"]));
const hints = z.optional(z.array(z.enum(["hybrid", "security-key", "client-device"])));

/** Issue #26: the options of a passkey's creation (navigator.credentials.create), made by the server. */
export const PasskeyCreationOptions = z.object({
  rp: z.object({ name: z.string(), id: z.optional(z.string()) }),
  user: z.object({ id: z.string(), name: z.string(), displayName: z.string() }),
  challenge: z.string(),
  pubKeyCredParams: z.array(z.object({ alg: z.number(), type: z.literal("public-key") })),
  timeout: z.optional(z.number()),
  excludeCredentials: z.optional(z.array(credentialDescriptor)),
  authenticatorSelection: z.optional(
    z.object({
      authenticatorAttachment: z.optional(z.enum(["platform", "cross-platform"])),
      requireResidentKey: z.optional(z.boolean()),
      residentKey: z.optional(z.enum(["required", "preferred", "discouraged"])),
      userVerification,
    }),
  ),
  hints,
  attestation: z.optional(z.enum(["none", "indirect", "direct", "enterprise"])),
  extensions: z.optional(z.object({ credProps: z.optional(z.boolean()) })),
});

/** Issue #26: the options of a passkey's use (navigator.credentials.get), made by the server. */
export const PasskeyRequestOptions = z.object({
  challenge: z.string(),
  timeout: z.optional(z.number()),
  rpId: z.optional(z.string()),
  allowCredentials: z.optional(z.array(credentialDescriptor)),
  userVerification,
  hints,
});

const clientExtensionResults = z.object({
  credProps: z.optional(z.object({ rk: z.optional(z.boolean()) })),
});
const attachment = z.optional(z.enum(["platform", "cross-platform"]));

/** Issue #26: what the browser's authenticator answered to a creation (RegistrationResponseJSON). */
export const PasskeyRegistrationResponse = z.object({
  id: credentialId,
  rawId: credentialId,
  response: z.object({
    clientDataJSON: base64url(4096),
    attestationObject: base64url(65536),
    authenticatorData: z.optional(base64url(65536)),
    transports,
    publicKeyAlgorithm: z.optional(z.number()),
    publicKey: z.optional(base64url(8192)),
  }),
  authenticatorAttachment: attachment,
  clientExtensionResults,
  type: z.literal("public-key"),
});

/** Issue #26: what the browser's authenticator answered to a request (AuthenticationResponseJSON). */
export const PasskeyAuthenticationResponse = z.object({
  id: credentialId,
  rawId: credentialId,
  response: z.object({
    clientDataJSON: base64url(4096),
    authenticatorData: base64url(65536),
    // An ML-DSA-87 signature (the post-quantum algorithm @simplewebauthn 14 offers) is 4627 bytes.
    signature: base64url(8192),
    userHandle: z.optional(base64url(128)),
  }),
  authenticatorAttachment: attachment,
  clientExtensionResults,
  type: z.literal("public-key"),
});

const passkeyName = z.pipe(
  z.pipe(z.string().check(z.maxLength(PASSKEY_NAME_MAX * 4)), z.transform(normalizeText)),
  z.string().check(z.minLength(1, { error: "validation.required" }), z.maxLength(PASSKEY_NAME_MAX)),
);

/** Issue #26: a new passkey, as its creation answered; `name` defaults to the browser and platform's. */
export const PasskeyRegisterBody = z.object({ response: PasskeyRegistrationResponse, name: z.optional(passkeyName) });
export const PasskeyRegisterAnswer = z.object({
  passkey: PasskeySummary,
  /** The recovery codes, shown once, when this passkey is the account's first second factor. */
  recoveryCodes: z.optional(z.array(z.string())),
});
export const PasskeyParams = z.object({ id: credentialId });
export const PasskeyRenameBody = z.object({ name: passkeyName });

/**
 * Issue #26: what a passkey ceremony is for: a sign-in (alone, or the second factor an attempt owes), or a signed-in
 * person's step-up.
 */
export const PASSKEY_PURPOSES = ["sign_in", "reauthenticate"] as const;
export const PasskeyOptionsBody = z.object({ purpose: z.optional(z.enum(PASSKEY_PURPOSES)) });
export const PasskeySignInBody = z.object({
  response: PasskeyAuthenticationResponse,
  purpose: z.optional(z.enum(PASSKEY_PURPOSES)),
  returnTo,
});
/** A sign-in's next step, or a step-up's new deadline. */
export const PasskeySignInAnswer = z.object({ next: z.optional(Next), freshUntil: z.optional(z.number()) });
