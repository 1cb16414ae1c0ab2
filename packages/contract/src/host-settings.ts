import { z } from "zod/mini";
import { BRAND_IDS } from "./brands.ts";
import { DEFAULT_TRIAL_PRODUCT_CODE, LICENCE_HELPER } from "./constants.ts";
import { LANGUAGE_CODES } from "./languages.ts";
import { SOCIAL_PLATFORMS } from "./sign-in.ts";

/** Page-setting flags of spec §2 "Login" (and the linked-session switch of spec §4). */
export const FLAGS = [
  "SOCIAL_REGISTER",
  "CORPORATE_REGISTER",
  "CORPORATE_LOGIN",
  "TRIMBLE_LOGIN",
  "TRIMBLE_REGISTER",
] as const;
export type Flag = (typeof FLAGS)[number];

export const Flags = z.object(
  Object.fromEntries(FLAGS.map((f) => [f, z._default(z.boolean(), false)])) as {
    [K in Flag]: z.ZodMiniDefault<z.ZodMiniBoolean>;
  },
);
export type Flags = z.infer<typeof Flags>;

/**
 * The third-party bot checks a deployment may configure instead of our proof of work (ARCHITECTURE.md "captcha /
 * bot check"). Both render explicitly into a container and hand a token to a callback; the server verifies it.
 */
export const REMOTE_BOT_CHECKS = {
  turnstile: {
    script: "https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit",
    /** What the page's Content-Security-Policy must allow for its script and its frame. */
    origins: ["https://challenges.cloudflare.com"],
  },
  recaptcha: {
    script: "https://www.google.com/recaptcha/api.js?render=explicit",
    origins: ["https://www.google.com", "https://www.gstatic.com", "https://recaptcha.google.com"],
  },
} as const;
export type RemoteBotCheckProvider = keyof typeof REMOTE_BOT_CHECKS;

/** Which bot check the registration form shows to visitors outside CN. */
export const BotCheckSettings = z.discriminatedUnion("provider", [
  z.object({ provider: z.literal("altcha") }),
  z.object({ provider: z.enum(["turnstile", "recaptcha"]), siteKey: z.string() }),
]);
export type BotCheckSettings = z.infer<typeof BotCheckSettings>;

/** What the server writes into the HTML it serves, chosen by the request's host name (ARCHITECTURE.md). */
export const HostSettings = z.object({
  brand: z.enum(BRAND_IDS),
  /** Base of the gateway API: `/api` on the page's own origin (every brand host serves it), or GATEWAY_URL. */
  gatewayUrl: z.string(),
  /** The service's default site (PUBLIC_URL); the page's own origin is the one it was loaded from. */
  publicUrl: z.string(),
  flags: Flags,
  /** Hosts that return_to may name (spec §4). */
  returnHosts: z.array(z.string()),
  /**
   * Origins of the legacy sites (CLIENTS_FILE clients marked `legacy`) that receive an access token at their return
   * address (spec §4, issue #10 §3); any other return address gets none.
   */
  tokenOrigins: z._default(z.array(z.string()), []),
  /** Issue #13: the community forum's origin (DISCOURSE_URL) when the forum bridge is on: the forum page links back. */
  forumUrl: z.optional(z.string()),
  /**
   * Spec §4, issue #10 §5: linked sessions are on (LINKED_SESSIONS) and this host is not the central one
   * (`publicUrl`), so the page links its session with the central host's.
   */
  linkedSessions: z._default(z.boolean(), false),
  /**
   * The social providers IDPS_FILE sets up (issue #11): a flag shows a provider's button only when it is here. The
   * corporate flags are already off when no company's provider is set up.
   */
  socialPlatforms: z._default(z.array(z.enum(SOCIAL_PLATFORMS)), []),
  /** Language picked from a mailed link's `lang`, the cookie, the return-URL path and the country, in that order. */
  language: z.enum(LANGUAGE_CODES as [string, ...string[]]),
  /** Upper-cased visitor country, ZZ when unknown. */
  country: z.string(),
  botCheck: BotCheckSettings,
  /** Issue #12: the product code of a trial whose address names none (TRIAL_PRODUCT_CODE). */
  trialProductCode: z._default(z.string(), DEFAULT_TRIAL_PRODUCT_CODE),
  /** Issue #13: the origin of the person's local licence helper (LICENCE_HELPER_URL), called by the studio page. */
  licenceHelperUrl: z._default(z.string(), LICENCE_HELPER.defaultUrl),
});
export type HostSettings = z.infer<typeof HostSettings>;

/** Id of the JSON script element carrying the settings. */
export const HOST_SETTINGS_ELEMENT_ID = "gatehouse-settings";
