import { z } from "zod/mini";
import { BRAND_IDS } from "../brands.ts";

/**
 * What a site or app may ask to receive (the provider's scopes), in the order the consent screen lists them.
 * `openid` alone already tells the site who the person is (its `sub`), so a site that is not the vendor's own asks
 * for it too (issue #24 §2).
 */
export const CONSENT_SCOPES = ["openid", "email", "profile", "offline_access", "api", "trials"] as const;
export type ConsentScope = (typeof CONSENT_SCOPES)[number];

/** Our addition (issue #10 §2): the sign-in a site or app asked the provider for, as SERVICE_LOGIN shows it. */
export const ServiceLoginAnswer = z.object({
  client: z.object({
    id: z.string(),
    /** The client's name from the clients file, or its brand's name. */
    name: z.string(),
    /** The theme the screen shows: the client's brand. */
    brand: z.enum(BRAND_IDS),
    /** A desktop app (its pages after sign-in and sign-out are the ULA ones). */
    native: z.boolean(),
  }),
  /** The address the site suggests (login_hint), to fill in the form. */
  loginHint: z.optional(z.string()),
  /**
   * The person must sign in with their password first: no gateway session, or one the site does not accept
   * (prompt=login asks for a fresh sign-in; max_age for one recent enough).
   */
  signInRequired: z.boolean(),
  /** What the site asks to receive, when the person must agree to it (only clients that are not the vendor's own). */
  consent: z.array(z.enum(CONSENT_SCOPES)),
  /** The signed-in account the site would receive (issue #24 §2), when a gateway session exists. */
  account: z.optional(z.object({ name: z.string(), email: z.string() })),
  /**
   * The site's authorization request again, on this host: after signing out to use another account, the screen
   * goes there, so the provider opens a new sign-in without the previous person's session (issue #24 §2).
   */
  restartUrl: z.string(),
});

export const ServiceLoginFinishBody = z.object({
  /** The person agreed to what `consent` listed (ignored when nothing was asked). */
  consent: z._default(z.boolean(), false),
});

/** Where the browser goes on: back to the provider, which sends it to the site. */
export const ServiceLoginFinishAnswer = z.object({ redirect_to: z.string() });
