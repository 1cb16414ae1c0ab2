import { HOST_SETTINGS_ELEMENT_ID, HostSettings } from "@gatehouse/contract";

/** The host-page settings the server wrote into the HTML; the Vite dev server has none, so sane defaults apply. */
export function readHostSettings(doc: Document = document): HostSettings {
  const element = doc.getElementById(HOST_SETTINGS_ELEMENT_ID);
  const parsed = element?.textContent ? HostSettings.safeParse(JSON.parse(element.textContent)) : undefined;
  if (parsed?.success) return parsed.data;
  const origin = doc.location?.origin ?? "http://localhost:8080";
  return HostSettings.parse({
    brand: "default",
    gatewayUrl: `${origin}/api`,
    publicUrl: origin,
    flags: {},
    returnHosts: [],
    language: "en",
    country: "ZZ",
    botCheck: { provider: "altcha" },
  });
}
