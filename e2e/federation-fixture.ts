import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { standInProvidersFile } from "../packages/server/test/idps.ts";
import { freePort } from "../packages/server/test/ports.ts";
import type { TestSmtp } from "../packages/server/test/smtp.ts";
import { type StandInIdp, startStandInIdp } from "../scripts/idp/stand-in.ts";
import { type Service, startService } from "./global.ts";
import { startTestSmtp } from "./run.ts";
import { launch } from "./support.ts";

/**
 * Issue #11's browser tests: Chromium, a real SMTP server, the stand-in identity provider (Google, Facebook,
 * Trimble and Acme's company provider) and a Gatehouse that signs in through it. The provider must know
 * Gatehouse's callback addresses before either starts, so the service's port is chosen first; every loopback host
 * of the brands file (localhost, cloud.localhost, …) is registered, so each brand's host can sign in.
 */
export interface FederationFixture {
  browser: Browser;
  smtp: TestSmtp;
  idp: StandInIdp;
  service: Service;
}

const ROOT = resolve(import.meta.dirname, "..");

/** Every loopback host of the default brands file, on one port: the origins the provider sends people back to. */
function loopbackOrigins(port: number): string[] {
  const brands = JSON.parse(readFileSync(join(ROOT, "packages/server/config/brands.json"), "utf8")) as {
    sites: { host: string }[];
  };
  const hosts = brands.sites
    .map((site) => site.host)
    .filter((host) => host === "localhost" || host.endsWith(".localhost") || host.startsWith("127."));
  return [...new Set(["localhost", ...hosts])].map((host) => `http://${host}:${port}`);
}

/**
 * `env` adds to the service's environment (e.g. a CLIENTS_FILE), worked out just before it starts, knowing the
 * service's port (a licence helper must know the gateway's address before either starts).
 */
export function useFederation(
  env: (port: number) => Promise<Record<string, string>> = async () => ({}),
): FederationFixture {
  const fixture = {} as FederationFixture;
  beforeAll(async () => {
    fixture.browser = await launch();
    fixture.smtp = await startTestSmtp();
    const port = await freePort();
    fixture.idp = await startStandInIdp({ origins: loopbackOrigins(port) });
    fixture.service = await startService(
      {
        SMTP_URL: fixture.smtp.url,
        IDPS_FILE: standInProvidersFile(fixture.idp),
        ...(await env(port)),
      },
      port,
    );
  });
  afterAll(async () => {
    await fixture.browser?.close();
    await fixture.service?.stop();
    await fixture.idp?.close();
    await fixture.smtp?.stop();
  });
  return fixture;
}

export interface AtProvider {
  /** Typed into Email; by default the login hint the provider prefilled stays. */
  email?: string;
  firstName?: string;
  lastName?: string;
  /** Unticks "Email verified" when false. */
  verified?: boolean;
  /** The stand-in's button: sign in (default), refuse (Cancel) or fail (Fail). */
  button?: "Sign in" | "Cancel" | "Fail";
}

/**
 * On the stand-in's sign-in page, as a person does: by its labels, then one of its buttons; waits until the browser
 * is back at Gatehouse. Answers what the provider's form showed in Email when it opened (the login hint).
 */
export async function atProvider(page: Page, idp: StandInIdp, person: AtProvider = {}): Promise<string> {
  await page.waitForURL((url) => url.origin === new URL(idp.url).origin);
  const email = page.getByLabel("Email", { exact: true });
  const hint = await email.inputValue();
  if (person.email !== undefined) await email.fill(person.email);
  if (person.firstName !== undefined) await page.getByLabel("First name").fill(person.firstName);
  if (person.lastName !== undefined) await page.getByLabel("Last name").fill(person.lastName);
  if (person.verified === false) await page.getByLabel("Email verified").uncheck();
  await page.getByRole("button", { name: person.button ?? "Sign in", exact: true }).click();
  await page.waitForURL((url) => url.origin !== new URL(idp.url).origin);
  return hint;
}
