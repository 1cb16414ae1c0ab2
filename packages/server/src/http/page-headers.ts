import fastifyHelmet from "@fastify/helmet";
import { REMOTE_BOT_CHECKS } from "@gatehouse/contract";
import type { FastifyInstance } from "fastify";
import type { Config } from "../config.ts";

/**
 * Browser features the pages never use, denied to them and to every frame they embed (OWASP Secure Headers
 * Project): if a script ever got in, it still could not reach a camera, a microphone, the location, payment or a
 * device. Left at the browser's default: what a configured Turnstile or reCAPTCHA frame may use (their documents
 * ask for no feature; autoplay for the audio challenge, fullscreen and private state tokens stay default) and
 * WebAuthn (publickey-credentials-*), which passkeys will need. Only names the browsers we test know: an unknown
 * one is logged as an error on every page (Chromium knows neither `interest-cohort`, gone with FLoC, nor the ad
 * auction, attribution, Bluetooth or ambient-light features; `browsing-topics` replaced FLoC).
 */
export const DENIED_FEATURES = [
  "accelerometer",
  "browsing-topics",
  "camera",
  "compute-pressure",
  "display-capture",
  "encrypted-media",
  "gamepad",
  "geolocation",
  "gyroscope",
  "hid",
  "idle-detection",
  "local-fonts",
  "magnetometer",
  "microphone",
  "midi",
  "otp-credentials",
  "payment",
  "picture-in-picture",
  "screen-wake-lock",
  "serial",
  "usb",
  "window-management",
  "xr-spatial-tracking",
] as const;

const PERMISSIONS_POLICY = DENIED_FEATURES.map((feature) => `${feature}=()`).join(", ");

/** The page's CSP connect-src: its own origin, and a separate gateway's origin when one is configured. */
export function connectSources(config: Pick<Config, "gatewayUrl">): string[] {
  return config.gatewayUrl ? ["'self'", new URL(config.gatewayUrl).origin] : ["'self'"];
}

/**
 * The pages' Content-Security-Policy (ASVS 3.4.3). `connectTo` adds origins to connect-src for one page only: the
 * studio's completion page calls the person's local licence helper (issue #13), and no other page may.
 */
export function pageCsp(config: Config, connectTo: readonly string[] = []) {
  const thirdParty: string[] =
    config.botCheck.provider === "altcha" ? [] : [...REMOTE_BOT_CHECKS[config.botCheck.provider].origins];
  return {
    directives: {
      "frame-ancestors": ["'none'"],
      // The web app calls the gateway on its own origin, or on GATEWAY_URL's when one is set.
      "connect-src": [...connectSources(config), ...connectTo],
      "form-action": ["'self'"],
      // The proof-of-work widget solves in Web Workers it creates from blob: URLs of our own scripts.
      "worker-src": ["'self'", "blob:"],
      // A configured third-party bot check loads its script and frame from its own origins, and only those.
      "script-src": ["'self'", ...thirdParty],
      "frame-src": thirdParty.length > 0 ? thirdParty : null,
      // Our styles and fonts are our own: no stylesheet or font from any https: origin (helmet's default allows
      // them). 'unsafe-inline' stays for style attributes and the <style> the ALTCHA widget inserts; scripts
      // cannot be inlined, so it opens no script path.
      "style-src": ["'self'", "'unsafe-inline'"],
      "font-src": ["'self'", "data:"],
      "upgrade-insecure-requests": config.publicUrl.protocol === "https:" ? [] : null,
    },
  };
}

/**
 * Document headers of pages and assets: helmet's set with our CSP (ASVS 3.4.3), and the Permissions-Policy. /api
 * answers carry their own fixed set (http/session.ts). A page route may replace the CSP with its own `pageCsp`
 * (route option `helmet`).
 */
export async function registerPageHeaders(pages: FastifyInstance, config: Config): Promise<void> {
  await pages.register(fastifyHelmet, {
    contentSecurityPolicy: pageCsp(config),
    // The sign-in popup (spec §2 CLOSE) must still reach its opener.
    crossOriginOpenerPolicy: { policy: "same-origin-allow-popups" },
    strictTransportSecurity: config.publicUrl.protocol === "https:",
  });
  pages.addHook("onRequest", async (_request, reply) => {
    reply.header("permissions-policy", PERMISSIONS_POLICY);
  });
}
