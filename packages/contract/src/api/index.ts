import { z } from "zod/mini";
import { defineEndpoint } from "./endpoint.ts";
import * as s from "./schemas.ts";
import * as serviceLogin from "./service-login.ts";

export * from "./endpoint.ts";
export * from "./schemas.ts";
export * from "./service-login.ts";

/** Every gateway call of spec §7, relative to the gateway base `/api`. */
export const api = {
  // A visitor without a session gets 204 No Content rather than 401: the check is expected, not a failure, and a
  // 4xx would put an error in every visitor's browser console (issue #8).
  session: defineEndpoint({
    method: "GET",
    path: "/session",
    answer: z.nullable(s.SessionAnswer),
    statuses: [200, 204],
  }),
  /**
   * Our addition (issue #24): the browser's unfinished sign-in (a proof given, a step still owed), for the owed
   * step's screen; 404 when there is none. Never a session: nothing owed is represented by one.
   */
  signInAttempt: defineEndpoint({
    method: "GET",
    path: "/sign-in/attempt",
    answer: s.SignInAttemptAnswer,
    statuses: [200, 404],
  }),
  /** Issue #26: the second factor a sign-in attempt owes, by an authenticator code or a recovery code. */
  secondFactor: defineEndpoint({
    method: "POST",
    path: "/sign-in/second-factor",
    body: s.SecondFactorBody,
    answer: s.SecondFactorAnswer,
    statuses: [200, 400, 401, 429],
    session: "required",
    step: "second_factor",
    rateLimit: "secondFactor",
  }),
  /** Issue #26: the account's second factors, for the "Sign-in and security" section of Edit account. */
  security: defineEndpoint({
    method: "GET",
    path: "/account/security",
    answer: s.SecurityAnswer,
    statuses: [200],
    session: "required",
  }),
  /** Issue #26, step-up: a fresh proof (password, and a second factor's code where the account has one). */
  reauthenticate: defineEndpoint({
    method: "POST",
    path: "/account/reauthenticate",
    body: s.ReauthenticateBody,
    answer: s.ReauthenticateAnswer,
    statuses: [200, 400, 401, 429],
    session: "required",
    rateLimit: "secondFactor",
  }),
  /** Issue #26: a new authenticator app's secret; it counts once a code confirms it (totpConfirm). */
  totpStart: defineEndpoint({
    method: "POST",
    path: "/account/totp",
    answer: s.TotpStartAnswer,
    statuses: [200, 409],
    session: "required",
    fresh: true,
    rateLimit: "factors",
  }),
  totpConfirm: defineEndpoint({
    method: "POST",
    path: "/account/totp/confirm",
    body: s.TotpConfirmBody,
    answer: s.TotpConfirmAnswer,
    statuses: [200, 400, 404, 409],
    session: "required",
    fresh: true,
    rateLimit: "secondFactor",
  }),
  totpRemove: defineEndpoint({
    method: "DELETE",
    path: "/account/totp",
    answer: s.Empty,
    statuses: [200],
    session: "required",
    fresh: true,
    rateLimit: "factors",
  }),
  /**
   * Issue #26: a new set of recovery codes (the previous set stops working); 400 invalid_request for an account
   * without a second factor (codes are the way back to a factor, not a factor).
   */
  recoveryCodes: defineEndpoint({
    method: "POST",
    path: "/account/recovery-codes",
    answer: s.RecoveryCodesAnswer,
    statuses: [200, 400],
    session: "required",
    fresh: true,
    rateLimit: "factors",
  }),
  countries: defineEndpoint({ method: "GET", path: "/countries", answer: s.CountriesAnswer, statuses: [200] }),
  login: defineEndpoint({
    method: "POST",
    path: "/account/login",
    body: s.LoginBody,
    answer: s.LoginAnswer,
    statuses: [200, 400, 401, 403, 429],
    rateLimit: "login",
  }),
  loginModes: defineEndpoint({
    method: "POST",
    path: "/account/login/modes",
    body: s.LoginModesBody,
    answer: s.LoginModesAnswer,
    statuses: [200, 400, 429],
    rateLimit: "login",
  }),
  logout: defineEndpoint({
    method: "POST",
    path: "/account/logout",
    body: z.optional(s.LogoutBody),
    answer: s.Empty,
    statuses: [200, 403],
  }),
  registerValidate: defineEndpoint({
    method: "POST",
    path: "/account/register/validate",
    body: s.RegisterValidateBody,
    answer: s.RegisterValidateAnswer,
    statuses: [200, 400, 429],
    rateLimit: "registerValidate",
  }),
  register: defineEndpoint({
    method: "POST",
    path: "/account/register",
    body: s.RegisterBody,
    answer: s.Empty,
    statuses: [200, 400, 409, 429],
    rateLimit: "register",
  }),
  captcha: defineEndpoint({
    method: "GET",
    path: "/captcha/generate",
    answer: s.CaptchaAnswer,
    statuses: [200, 404, 429],
    rateLimit: "captcha",
  }),
  /** Our addition: the proof-of-work challenge for visitors outside CN. */
  botChallenge: defineEndpoint({
    method: "GET",
    path: "/captcha/challenge",
    answer: s.BotChallengeAnswer,
    statuses: [200, 429],
    rateLimit: "captcha",
  }),
  /** Spec §7: starts a social sign-in; 422 when the provider cannot be reached (the page reloads, spec §4). */
  socialLogin: defineEndpoint({
    method: "POST",
    path: "/account/social/login",
    body: s.SocialLoginBody,
    answer: s.RedirectAnswer,
    statuses: [200, 400, 422, 429],
    rateLimit: "federation",
  }),
  /** Our addition: the browser's pending social sign-in (a new account's details, or a link to confirm). */
  socialPending: defineEndpoint({
    method: "GET",
    path: "/account/social/pending",
    answer: s.SocialPendingAnswer,
    statuses: [200, 401],
  }),
  /**
   * Our addition (issue #25): Cancel on social registration forgets the browser's pending sign-in, so nothing the
   * provider sent stays behind; answered alike whether one was pending or not.
   */
  socialCancel: defineEndpoint({
    method: "DELETE",
    path: "/account/social/pending",
    answer: s.Empty,
    statuses: [200],
  }),
  socialRegister: defineEndpoint({
    method: "POST",
    path: "/account/social/register",
    body: s.SocialRegisterBody,
    answer: s.SocialRegisterAnswer,
    statuses: [200, 400, 401, 409, 429],
    rateLimit: "register",
  }),
  /** Links the pending identity to the account after its password; the answer is the login's (spec §4). */
  socialLink: defineEndpoint({
    method: "POST",
    path: "/account/social/link",
    body: s.SocialLinkBody,
    answer: s.LoginAnswer,
    statuses: [200, 400, 401, 403, 429],
    rateLimit: "login",
  }),
  /** Spec §7: starts a corporate sign-in at the provider of the address's domain, with the address as login hint. */
  federatedLogin: defineEndpoint({
    method: "POST",
    path: "/account/federated/login",
    body: s.FederatedLoginBody,
    answer: s.RedirectAnswer,
    statuses: [200, 400, 404, 422, 429],
    rateLimit: "federation",
  }),
  /**
   * Our addition: where every provider sends the browser back (its redirect URI, one a provider and brand host).
   * A browser navigation, so every outcome is a redirect: a signed-in person on to their return address, a new one
   * to social registration, an existing address to linking, a refusal to the error page.
   */
  federationCallback: defineEndpoint({
    method: "GET",
    path: "/federation/{provider}/callback",
    params: s.FederationCallbackParams,
    query: s.FederationCallbackQuery,
    answer: s.Empty,
    statuses: [302, 400],
    rateLimit: "federation",
  }),
  /** Our additions: the account's linked identities (Edit account), and removing one while a way to sign in remains. */
  identities: defineEndpoint({
    method: "GET",
    path: "/account/identities",
    answer: s.IdentitiesAnswer,
    statuses: [200, 401],
    session: "required",
  }),
  unlinkIdentity: defineEndpoint({
    method: "DELETE",
    path: "/account/identities/{provider}",
    params: s.IdentityParams,
    answer: s.Empty,
    statuses: [200, 401, 404, 409],
    session: "required",
    // Issue #26 step-up: removing a way to sign in is a sensitive change (ASVS 6.4.x).
    fresh: true,
  }),
  /**
   * Our addition (issue #25): an account without a password (made through a provider or a company) asks for a
   * set-up link by mail, the invitation's flow (/account/password-setup). The same empty answer whatever happens.
   */
  passwordSetupLink: defineEndpoint({
    method: "POST",
    path: "/account/password/setup-link",
    body: s.Empty,
    answer: s.Empty,
    statuses: [200, 400, 401, 429],
    session: "required",
    rateLimit: "setupLink",
  }),
  profile: defineEndpoint({
    method: "GET",
    path: "/account/profile",
    answer: s.ProfileAnswer,
    statuses: [200, 401],
    session: "required",
    step: "profile_update",
  }),
  updateProfile: defineEndpoint({
    method: "PUT",
    path: "/account/profile",
    body: s.ProfileBody,
    answer: s.StepAnswer,
    statuses: [200, 400, 401],
    session: "required",
    step: "profile_update",
  }),
  recover: defineEndpoint({
    method: "POST",
    path: "/account/recover",
    body: s.RecoverBody,
    answer: s.Empty,
    statuses: [200, 400, 429],
    rateLimit: "recover",
  }),
  recoverStatus: defineEndpoint({
    method: "GET",
    path: "/account/recover/{code}",
    params: s.CodeParams,
    answer: s.CodeStatusAnswer,
    statuses: [200, 400, 429],
    rateLimit: "codeCheck",
  }),
  resetPassword: defineEndpoint({
    method: "POST",
    path: "/account/reset_password",
    body: s.ResetPasswordBody,
    answer: s.Empty,
    statuses: [200, 400, 404, 410],
    rateLimit: "setPassword",
  }),
  setupPassword: defineEndpoint({
    method: "POST",
    path: "/account/setup_password",
    body: s.SetupPasswordBody,
    answer: s.SetupPasswordAnswer,
    statuses: [200, 400, 403, 404, 410],
    rateLimit: "setPassword",
  }),
  changePassword: defineEndpoint({
    method: "POST",
    path: "/account/change_password",
    body: s.ChangePasswordBody,
    answer: s.StepAnswer,
    statuses: [200, 400, 401, 403, 429],
    session: "required",
    step: "password_change",
    // Issue #26 step-up, for a session's change only: an attempt owing the change has just given its proof.
    fresh: true,
    rateLimit: "setPassword",
  }),
  activate: defineEndpoint({
    method: "POST",
    path: "/account/activate",
    body: s.ActivateBody,
    answer: s.Empty,
    statuses: [200, 400, 404, 410],
    rateLimit: "activate",
  }),
  resendActivation: defineEndpoint({
    method: "POST",
    path: "/account/resend_activation",
    body: s.ResendActivationBody,
    answer: s.Empty,
    statuses: [200, 400, 429],
    rateLimit: "resendActivation",
  }),
  /** Our addition (issue #5): mails the deletion link. */
  deleteRequest: defineEndpoint({
    method: "POST",
    path: "/account/delete/request",
    body: s.DeleteRequestBody,
    answer: s.Empty,
    statuses: [200, 400, 401, 429],
    session: "required",
    // Issue #26 step-up: the account's deletion (ASVS 6.4.x).
    fresh: true,
    rateLimit: "deletion",
  }),
  deleteAccount: defineEndpoint({
    method: "POST",
    path: "/account/delete",
    body: s.DeleteBody,
    answer: s.Empty,
    statuses: [200, 400, 404, 410],
    rateLimit: "deletion",
  }),
  /** Our addition (issue #25): the deletion link's state on the screen's load; the code is not used. */
  deletionStatus: defineEndpoint({
    method: "GET",
    path: "/account/delete/{code}",
    params: s.CodeParams,
    answer: s.DeletionStatusAnswer,
    statuses: [200, 400, 429],
    rateLimit: "codeCheck",
  }),
  trialResendActivation: defineEndpoint({
    method: "POST",
    path: "/account/trial/activation/resend",
    body: s.ResendActivationBody,
    answer: s.Empty,
    statuses: [200, 400, 429],
    rateLimit: "resendActivation",
  }),
  activationLogin: defineEndpoint({
    method: "POST",
    path: "/account/activation/login",
    body: s.ActivationLoginBody,
    answer: s.ActivationLoginAnswer,
    statuses: [200, 400, 403, 404, 410],
    rateLimit: "activate",
  }),
  /** Our addition (issue #12): "Start your trial" of a signed-in visitor (spec §2 trial flow, step 2). */
  trialStart: defineEndpoint({
    method: "POST",
    path: "/account/trial/start",
    body: s.TrialStartBody,
    answer: s.TrialAnswer,
    statuses: [200, 400, 401, 403, 409, 429],
    session: "required",
    rateLimit: "trialStart",
  }),
  /**
   * Issue #13: the forum's DiscourseConnect request, answered with the forum's address carrying our signed answer.
   * Public, so a bad link is refused before anyone signs in: the handler answers 401 `not_authenticated` to a
   * visitor (a sign-in still owing a step is one: issue #24), 404 `discourse_not_configured` without the bridge, 400
   * for a bad signature, payload, return address or a replayed nonce.
   */
  discourseSso: defineEndpoint({
    method: "GET",
    path: "/discourse/sso",
    query: s.DiscourseQuery,
    answer: s.DiscourseAnswer,
    statuses: [200, 400, 401, 404],
    rateLimit: "discourseSso",
  }),
  /**
   * A browser navigation (issue #10 §3, issue #24 §2): a redirect to `continue` (exactly a legacy client's redirect
   * URI) with a token, to the error page (`legacy_token_error`, `legacy_invalid_authentication`), or through
   * sign-in for an owed step; a navigation another site started gets 200 and an HTML page with a button instead.
   */
  legacyToken: defineEndpoint({
    method: "GET",
    path: "/legacy_token",
    query: z.object({ continue: z.optional(z.string()) }),
    rateLimit: "legacyToken",
    answer: s.Empty,
    statuses: [200, 302, 400],
  }),
  /**
   * Our addition (issue #13), a browser navigation, so every outcome is a redirect: the end of the studio sign-in
   * (`/trimble/login`). A signed-in person goes to `/register/trimble/complete?access_token=<JWT for the API>`, a
   * person owing a step through sign-in first, a visitor back to `/trimble/login`.
   */
  studioComplete: defineEndpoint({
    method: "GET",
    path: "/studio/complete",
    rateLimit: "studioToken",
    answer: s.Empty,
    statuses: [302],
  }),
  /**
   * Our addition (issue #13): the account a licence token belongs to, sent as `Authorization: Bearer`, answered only
   * when it is the signed-in person's (403 `studio_token_mismatch` otherwise): the completion page activates nothing
   * for a token someone else handed it.
   */
  studioAccount: defineEndpoint({
    method: "GET",
    path: "/studio/account",
    answer: s.StudioAccountAnswer,
    statuses: [200, 401, 403, 429],
    session: "required",
    rateLimit: "studioToken",
  }),
  /**
   * Our additions (issue #10 §5), browser navigations between brand hosts, each answered by a redirect: the host
   * that wants the session starts (`from` is the host that has it), that host gives a code, the first redeems it.
   */
  sessionLinkStart: defineEndpoint({
    method: "GET",
    path: "/session/link/start",
    query: z.object({ from: z.string(), return_to: z.string() }),
    rateLimit: "sessionLink",
    answer: s.Empty,
    statuses: [302, 400, 404],
  }),
  sessionLinkGive: defineEndpoint({
    method: "GET",
    path: "/session/link/give",
    query: z.object({ to: z.string(), state: z.string(), return_to: z.string() }),
    rateLimit: "sessionLink",
    answer: s.Empty,
    statuses: [302, 400, 404],
  }),
  sessionLinkRedeem: defineEndpoint({
    method: "GET",
    path: "/session/link/redeem",
    // `from`: the giving host's origin, for the central host to send the browser back there when it keeps a newer
    // sign-in than the one brought (checked against the brands file like every origin of the link).
    query: z.object({ code: z.optional(z.string()), return_to: z.string(), from: z.optional(z.string()) }),
    rateLimit: "sessionLink",
    answer: s.Empty,
    statuses: [302, 400, 404],
  }),
  /**
   * Our addition (issue #10 §2): the sign-in a site or app asked the OpenID Connect provider for, read from the
   * provider's interaction cookie: who asks, in which brand, and whether the gateway session can finish it.
   */
  serviceLogin: defineEndpoint({
    method: "GET",
    path: "/service_login",
    answer: serviceLogin.ServiceLoginAnswer,
    statuses: [200, 404],
  }),
  /**
   * Our addition: finishes that sign-in with the gateway session (after the person signed in, and agreed when
   * asked) and answers where the browser goes on. 401 until signed in as the site requires; 403 while the
   * account owes a step or the person has not agreed; 404 when the sign-in is gone (expired, already finished).
   */
  serviceLoginFinish: defineEndpoint({
    method: "POST",
    path: "/service_login/finish",
    body: serviceLogin.ServiceLoginFinishBody,
    answer: serviceLogin.ServiceLoginFinishAnswer,
    statuses: [200, 400, 401, 403, 404, 429],
    // Issue #28: per address here, and per account in the route (SERVICE_LOGIN_FINISH_PER_ACCOUNT).
    rateLimit: "serviceLoginFinish",
  }),
  /** Our addition: the person declines; the site is told `access_denied`. */
  serviceLoginAbort: defineEndpoint({
    method: "POST",
    path: "/service_login/abort",
    answer: serviceLogin.ServiceLoginFinishAnswer,
    statuses: [200, 404],
  }),
  /**
   * Issue #26, passkeys: a new passkey's creation options (a resident key, user verification required, the
   * account's passkeys excluded); the challenge is kept for this browser, single-use, WEBAUTHN_CHALLENGE_TTL_MS.
   */
  passkeyRegistrationOptions: defineEndpoint({
    method: "POST",
    path: "/account/passkeys/options",
    answer: s.PasskeyCreationOptions,
    statuses: [200],
    session: "required",
    fresh: true,
    rateLimit: "factors",
  }),
  /** Issue #26: the new passkey as the authenticator answered (400 `passkey_invalid` when it does not verify). */
  passkeyRegister: defineEndpoint({
    method: "POST",
    path: "/account/passkeys",
    body: s.PasskeyRegisterBody,
    answer: s.PasskeyRegisterAnswer,
    statuses: [200, 400],
    session: "required",
    fresh: true,
    rateLimit: "factors",
  }),
  passkeyRename: defineEndpoint({
    method: "PUT",
    path: "/account/passkeys/{id}",
    params: s.PasskeyParams,
    body: s.PasskeyRenameBody,
    answer: s.PasskeySummary,
    statuses: [200, 400, 404],
    session: "required",
    rateLimit: "factors",
  }),
  /** Issue #26: removing the last second factor removes the recovery codes and the remembered browsers too. */
  passkeyRemove: defineEndpoint({
    method: "DELETE",
    path: "/account/passkeys/{id}",
    params: s.PasskeyParams,
    answer: s.Empty,
    statuses: [200, 400, 404],
    session: "required",
    fresh: true,
    rateLimit: "factors",
  }),
  /**
   * Issue #26: a passkey ceremony's options: usernameless for a sign-in (no allowed credentials), the account's
   * passkeys for an attempt owing the second factor or a step-up (`purpose: "reauthenticate"`).
   */
  passkeyOptions: defineEndpoint({
    method: "POST",
    path: "/sign-in/passkey/options",
    body: s.PasskeyOptionsBody,
    answer: s.PasskeyRequestOptions,
    statuses: [200, 400, 401],
    rateLimit: "passkey",
  }),
  /**
   * Issue #26: a passkey's assertion: a sign-in with the passkey alone (answers `next`, as a sign-in does), the
   * second factor of the browser's attempt, or a step-up (answers `freshUntil`). Any credential that does not
   * verify — unknown, another account's, a bad signature, no user verification — is 400 `passkey_invalid`.
   */
  passkeySignIn: defineEndpoint({
    method: "POST",
    path: "/sign-in/passkey",
    body: s.PasskeySignInBody,
    answer: s.PasskeySignInAnswer,
    statuses: [200, 400, 401, 403],
    rateLimit: "passkey",
  }),
} as const;
