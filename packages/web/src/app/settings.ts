import { HOST_SETTINGS_ELEMENT_ID, HostSettings } from "@gatehouse/contract";

/** What readHostSettings needs of a document: the settings element and the page's address. */
export type SettingsSource = Pick<Document, "getElementById"> & { location?: Pick<Location, "href" | "origin"> | null };

const FALLBACK_ORIGIN = "http://localhost:8080";

/**
 * The host-page settings the server wrote into the HTML; the Vite dev server has none, so sane defaults apply.
 * The gateway is resolved against the page's own address: the server writes `/api` (each brand's host serves the
 * whole service, so the app calls the origin it was loaded from) or an absolute GATEWAY_URL on another origin.
 */
export function readHostSettings(doc: SettingsSource = document): HostSettings {
  const here = doc.location?.href ?? `${FALLBACK_ORIGIN}/`;
  const element = doc.getElementById(HOST_SETTINGS_ELEMENT_ID);
  const parsed = element?.textContent ? HostSettings.safeParse(JSON.parse(element.textContent)) : undefined;
  const settings = parsed?.success
    ? parsed.data
    : HostSettings.parse({
        brand: "default",
        gatewayUrl: "/api",
        publicUrl: doc.location?.origin ?? FALLBACK_ORIGIN,
        flags: {},
        returnHosts: [],
        tokenOrigins: [],
        language: "en",
        country: "ZZ",
        botCheck: { provider: "altcha" },
      });
  return { ...settings, gatewayUrl: new URL(settings.gatewayUrl, here).href.replace(/\/+$/u, "") };
}
