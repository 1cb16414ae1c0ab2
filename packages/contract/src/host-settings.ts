import { z } from "zod";
import { BRAND_IDS } from "./brands.ts";
import { LANGUAGE_CODES } from "./languages.ts";

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
  Object.fromEntries(FLAGS.map((f) => [f, z.boolean().default(false)])) as {
    [K in Flag]: z.ZodDefault<z.ZodBoolean>;
  },
);
export type Flags = z.infer<typeof Flags>;

/** What the server writes into the HTML it serves, chosen by the request's host name (ARCHITECTURE.md). */
export const HostSettings = z.object({
  brand: z.enum(BRAND_IDS),
  /** Base of the gateway API, e.g. http://localhost:8080/api. */
  gatewayUrl: z.string(),
  /** Our own public origin. */
  publicUrl: z.string(),
  flags: Flags,
  /** Hosts that return_to may name (spec §4). */
  returnHosts: z.array(z.string()),
  /** Language picked from cookie, return-URL path and country, in that order. */
  language: z.enum(LANGUAGE_CODES as [string, ...string[]]),
  /** Upper-cased visitor country, ZZ when unknown. */
  country: z.string(),
});
export type HostSettings = z.infer<typeof HostSettings>;

/** Id of the JSON script element carrying the settings. */
export const HOST_SETTINGS_ELEMENT_ID = "gatehouse-settings";
