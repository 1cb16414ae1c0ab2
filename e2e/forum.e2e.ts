import { BRAND_IDS, BRANDS } from "@gatehouse/contract";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type StandInForum, startStandInForum } from "../scripts/forum/stand-in.ts";
import { type Service, startService } from "./global.ts";
import {
  createPerson,
  expectAccessible,
  isFocused,
  launch,
  screenshot,
  signIn,
  stubExternalSites,
  uniqueEmail,
  visit,
} from "./support.ts";

/**
 * Issue #13 in Chromium: the forum stand-in (scripts/forum/stand-in.ts) sends people to /discourse/login with a
 * signed DiscourseConnect request, and takes them back signed in.
 */
const PASSWORD = "correct horse battery";
const SECRET = "e2e-forum-shared-secret";
const API_KEY = "e2e-forum-api-key";

let forum: StandInForum;
let service: Service;
let browser: Browser;

beforeAll(async () => {
  forum = await startStandInForum({ gatewayUrl: "http://localhost:1", secret: SECRET, apiKey: API_KEY });
  service = await startService({ DISCOURSE_URL: forum.url, DISCOURSE_SECRET: SECRET, DISCOURSE_API_KEY: API_KEY });
  forum.setGatewayUrl(service.baseUrl);
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await forum?.close();
});

async function person(flags: string[] = []): Promise<string> {
  const email = uniqueEmail("forum");
  await createPerson(
    { email, password: PASSWORD, first: "Ann", last: "Lee", country: "DE", flags },
    service.databaseUrl,
  );
  return email;
}

describe("the community forum sign-in (issue #13)", () => {
  it("takes a visitor from the forum through sign-in at Gatehouse and back, signed in at the forum", async () => {
    const email = await person(["--verified"]);
    const { page, context } = await visit(browser, forum.loginUrl, {}, service.baseUrl);
    // Sent to sign in, with this page's full address to come back to.
    await page.waitForURL((url) => url.pathname === "/" && url.searchParams.has("return_to"));
    const back = new URL(new URL(page.url()).searchParams.get("return_to") ?? "");
    expect(back.origin + back.pathname).toBe(`${service.baseUrl}/discourse/login`);
    expect(back.searchParams.get("sso")).toBeTruthy();
    await page.getByRole("heading", { level: 1 }).waitFor();
    await expectAccessible(page);
    await signIn(page, email, PASSWORD);
    await page.waitForURL((url) => url.origin === forum.url && url.pathname === "/");
    await expect.poll(() => page.locator("#email").textContent()).toBe(email);
    expect(await page.locator("#name").textContent()).toBe("Ann Lee");
    expect(await page.getByText("needs activation").count()).toBe(0);
    await context.close();
  });

  it("sends a signed-in visitor straight through, and an unproven address needs the forum's activation", async () => {
    const email = await person();
    const { page, context } = await visit(browser, "/?return_to=/login/success", {}, service.baseUrl);
    await stubExternalSites(context);
    await signIn(page, email, PASSWORD);
    // The default brand's success page goes on by itself to the brand's site (a stand-in here): the forum's link is
    // followed once it got there, so the page's own navigation never cuts into it (it did on a loaded machine).
    await page.waitForURL((url) => url.href === BRANDS.default.links.home);
    await page.goto(forum.loginUrl, { waitUntil: "commit" });
    await page.waitForURL((url) => url.origin === forum.url && url.pathname === "/");
    expect(await page.locator("#email").textContent()).toBe(email);
    expect(await page.getByText("Your account still needs activation.").count()).toBe(1);
    expect(forum.signIns.at(-1)?.fields.require_activation).toBe("true");
    await context.close();
  });

  it("shows a tampered link's error with a reference and the way back to the forum", async () => {
    const request = forum.request();
    const path = `/discourse/login?${new URLSearchParams({ sso: request.sso, sig: "0".repeat(64) })}`;
    const { page, context } = await visit(browser, path, {}, service.baseUrl);
    await page.getByRole("heading", { level: 1, name: "We could not sign you in to the forum" }).waitFor();
    expect(await page.getByText("This forum sign-in link is not valid.").count()).toBe(1);
    expect(await page.getByText(/^Ref: [0-9a-f-]{36}$/u).count()).toBe(1);
    const backLink = page.getByRole("link", { name: "Back to the forum" });
    expect(await backLink.getAttribute("href")).toBe(forum.url);
    expect(await page.title()).toContain("Community forum sign-in");
    await context.close();
  });

  for (const viewport of [
    { name: "phone", width: 390, height: 844 },
    { name: "desktop", width: 1280, height: 800 },
  ]) {
    it(`shows the page in every brand on a ${viewport.name}, accessible and usable by keyboard`, async () => {
      const request = forum.request();
      for (const theme of BRAND_IDS) {
        const path = `/discourse/login?${new URLSearchParams({ sso: request.sso, sig: "f".repeat(64), theme })}`;
        const { page, context } = await visit(browser, path, {}, service.baseUrl);
        await page.setViewportSize(viewport);
        const backLink = page.getByRole("link", { name: "Back to the forum" });
        await backLink.waitFor();
        await expectAccessible(page);
        await screenshot(page, `forum-error-${theme}-${viewport.name}`);
        // By keyboard alone: Tab reaches the one control, Enter follows it.
        for (let i = 0; i < 20 && !(await isFocused(backLink)); i++) await page.keyboard.press("Tab");
        expect(await isFocused(backLink)).toBe(true);
        await page.keyboard.press("Enter");
        await page.waitForURL((url) => url.origin === forum.url);
        await context.close();
      }
    });
  }
});
