import { LANGUAGES } from "@gatehouse/contract";
import { currentLanguage } from "../i18n/index.ts";
import { type ApiClient, createApiClient } from "./client.ts";
import { stepUp } from "./step-up.ts";

export * from "./client.ts";
export * from "./errors.ts";
export { setStepUpAsker } from "./step-up.ts";

let client: ApiClient | undefined;

/** Reports failures that reach no screen; a real error-reporting service plugs in here. */
export function reportError(error: unknown): void {
  window.dispatchEvent(new CustomEvent("gatehouse:error", { detail: error }));
  console.error(error);
}

/** The one gateway client of the app, built from the host-page settings. */
export function startApi(gatewayUrl: string, brand: string): ApiClient {
  client = createApiClient({
    baseUrl: gatewayUrl,
    brand,
    language: () => LANGUAGES[currentLanguage()].tag,
    report: reportError,
    stepUp,
  });
  return client;
}

export function gateway(): ApiClient {
  if (!client) throw new Error("startApi first");
  return client;
}
