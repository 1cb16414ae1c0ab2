/**
 * Issue #24 §2 in the browser: a site that is not the vendor's own asks consent even for `openid` alone, the screen
 * names the account it would receive and offers another one, and a site naming the brands' API without the `api`
 * scope receives no code for it.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OIDC_API_RESOURCE } from "@gatehouse/contract";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Service, startService } from "./global.ts";
import { createPerson, expectAccessible, launch, screenshot, signIn, uniqueEmail, visit } from "./support.ts";

const PASSWORD = "correct horse battery";

/** The partner site behind its redirect URI: a real listener that records what the provider sends it. */
let site: Server;
const received: URL[] = [];
let siteOrigin = "";
let service: Service;
let browser: Browser;

beforeAll(async () => {
  site = createServer((request, response) => {
    received.push(new URL(request.url ?? "/", siteOrigin));
    response.setHeader("content-type", "text/html; charset=utf-8");
    response.end("<!doctype html><title>Partner</title><p>Back at the partner</p>");
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  siteOrigin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  const clients = [
    {
      client_id: "partner",
      client_name: "Partner Gallery",
      client_secret: "partner-secret-of-at-least-forty-three-characters",
      redirect_uris: [`${siteOrigin}/partner`],
      brand: "assets",
    },
  ];
  const file = join(mkdtempSync(join(tmpdir(), "gatehouse-clients-")), "clients.json");
  writeFileSync(file, JSON.stringify({ clients }));
  service = await startService({ CLIENTS_FILE: file });
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await new Promise((resolve) => site.close(resolve));
});

/** The partner's authorization request: code + PKCE S256, a fresh state. */
function authorizeUrl(extra: Record<string, string>) {
  const verifier = randomBytes(32).toString("base64url");
  const state = randomBytes(8).toString("hex");
  const query = new URLSearchParams({
    client_id: "partner",
    redirect_uri: `${siteOrigin}/partner`,
    response_type: "code",
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    state,
    ...extra,
  });
  return { url: `${service.baseUrl}/oidc/auth?${query}`, state };
}

const lastReceived = () => received.filter((url) => url.pathname === "/partner").at(-1);

async function person(first: string, last: string) {
  const email = uniqueEmail("consent");
  await createPerson({ email, password: PASSWORD, first, last, country: "DE" }, service.databaseUrl);
  return email;
}

/** Waits for the consent screen and answers the account it names. */
async function consentScreen(page: Page) {
  await page.getByRole("heading", { level: 1, name: "Partner Gallery would like to use your account" }).waitFor();
  return page.getByText("Partner Gallery will receive this account:").locator("xpath=..");
}

describe("consent for a site that is not the vendor's own (issue #24 §2)", () => {
  it("asks for openid alone, names the account shared, and lets the person use another account", async () => {
    const first = await person("Ann", "Lee");
    const second = await person("Bea", "Kim");
    const { url, state } = authorizeUrl({ scope: "openid" });
    const { page, context } = await visit(browser, url, {}, service.baseUrl);
    await page.getByRole("heading", { level: 1, name: "Sign in to continue to Partner Gallery" }).waitFor();
    await signIn(page, first, PASSWORD);

    const account = await consentScreen(page);
    await account.getByText("Ann Lee").waitFor();
    await account.getByText(first).waitFor();
    expect(await page.getByRole("listitem").allTextContents()).toEqual(["Know who you are when you sign in"]);
    expect(received.some((target) => target.searchParams.get("state") === state)).toBe(false);
    await expectAccessible(page);
    await screenshot(page, "consent-openid");

    // Another account: signed out, the same request starts over at the sign-in form.
    await page.getByRole("button", { name: "Use another account" }).click();
    await page.getByRole("heading", { level: 1, name: "Sign in to continue to Partner Gallery" }).waitFor();
    await signIn(page, second, PASSWORD);
    const other = await consentScreen(page);
    await other.getByText("Bea Kim").waitFor();
    await other.getByText(second).waitFor();
    expect(await page.getByText(first).count()).toBe(0);

    await page.getByRole("button", { name: "Allow" }).click();
    await page.waitForURL((target) => target.origin === siteOrigin);
    expect(lastReceived()?.searchParams.get("state")).toBe(state);
    expect(lastReceived()?.searchParams.get("code")).toBeTruthy();
    await context.close();
  });

  it("sends a site that names the API without the api scope back with invalid_target and no code", async () => {
    const { url, state } = authorizeUrl({ scope: "openid", resource: OIDC_API_RESOURCE });
    const { page, context } = await visit(browser, url, {}, service.baseUrl);
    await page.waitForURL((target) => target.origin === siteOrigin);
    const answer = lastReceived();
    expect(answer?.searchParams.get("state")).toBe(state);
    expect(answer?.searchParams.get("error")).toBe("invalid_target");
    expect(answer?.searchParams.has("code")).toBe(false);
    await context.close();
  });

  it("names the brand whose services the api scope opens (issue #25: 'the vendor' was vague)", async () => {
    const email = await person("Cy", "Ng");
    const { url } = authorizeUrl({ scope: "openid api", resource: OIDC_API_RESOURCE });
    const { page, context } = await visit(browser, url, {}, service.baseUrl);
    await signIn(page, email, PASSWORD);
    await consentScreen(page);
    // The partner's brand is assets, named Cosmos.
    expect(await page.getByRole("listitem").allTextContents()).toEqual([
      "Know who you are when you sign in",
      "Use Cosmos services on your behalf",
    ]);
    await context.close();
  });
});
