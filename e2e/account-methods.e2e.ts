import { BRAND_IDS, BRANDS } from "@gatehouse/contract";
import type { Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { linkIn } from "../packages/server/test/smtp.ts";
import { type StandInLicenceHelper, startLicenceHelper } from "../scripts/licence-helper/stand-in.ts";
import { useFederation } from "./federation-fixture.ts";
import { completeProfile, federationPages, PASSWORD, TO_PROFILE } from "./federation-pages.ts";
import { layoutProblems, settled } from "./layout.ts";
import { expectAccessible, PHONE, screenshot, signIn, uniqueEmail } from "./support.ts";

/**
 * Issue #25 in Chromium: an account made with Google (no password) sets one from Edit account through a mailed
 * set-up link, and its only sign-in method has no Remove until then; the desktop app's sign-in error and success
 * pages; the licence helper's wait, with the stand-in helper really busy or really silent. One service, with the
 * stand-in identity provider, a real SMTP server and the licence-helper stand-in.
 */
let helper: StandInLicenceHelper;
const fx = useFederation(async (port) => {
  helper = await startLicenceHelper({ gatewayUrl: `http://localhost:${port}`, mode: "success" });
  return { LICENCE_HELPER_URL: helper.url };
});
afterAll(async () => {
  await helper?.close();
});
const { open, person, signInWith } = federationPages(fx);

/** What a person sees is whole and accessible; then photographed. */
async function check(page: Page, name: string) {
  await settled(page);
  await expectAccessible(page);
  expect(await layoutProblems(page, "en")).toEqual([]);
  await screenshot(page, name);
}

describe("an account made with Google sets a password from Edit account", () => {
  it("has no Remove on its only method, gets a set-up link by mail, and then may remove Google", async () => {
    const email = uniqueEmail("account.passwordless");
    const { page, context } = await open(TO_PROFILE);
    await page.setViewportSize(PHONE);
    await signInWith(page, "google", { email, firstName: "Rosa", lastName: "Park" });
    await completeProfile(page);
    await page.getByRole("heading", { name: "Edit account" }).waitFor();

    const linked = page.getByRole("region", { name: "Linked sign-in methods" });
    await linked.getByText("Google is your only way to sign in, so it cannot be removed.", { exact: false }).waitFor();
    expect(await linked.getByRole("button", { name: "Remove Google" }).count()).toBe(0);
    const password = page.getByRole("region", { name: "Password" });
    await password.getByText("Your account has no password yet", { exact: false }).waitFor();
    for (const brand of BRAND_IDS) {
      await page.goto(`/profile/edit?theme=${brand}`);
      await password.getByRole("button", { name: "Email me a link to set a password" }).waitFor();
      await check(page, `account-set-password-${brand}-phone`);
    }

    await password.getByRole("button", { name: "Email me a link to set a password" }).click();
    await password.getByText(`We sent a link to ${email}. Open it to choose your password.`).waitFor();
    const link = linkIn(await fx.smtp.waitFor(email), "/account/password-setup");
    await page.goto(link.pathname + link.search);
    await page.getByRole("heading", { name: "Set up your password" }).waitFor();
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    // Not an invitation: the password alone, no survey (decisions.md "A password for an account without one").
    expect(await page.getByRole("combobox", { name: "How did you hear about us?" }).count()).toBe(0);
    await page.getByRole("button", { name: "SET PASSWORD" }).click();
    await page.getByText("Your password is set.", { exact: false }).waitFor();

    // With a password, Google may go; the Password section is gone.
    await page.goto("/profile/edit");
    await linked.getByRole("button", { name: "Remove Google" }).click();
    await linked.getByText("Google was removed", { exact: false }).waitFor();
    expect(await page.getByRole("region", { name: "Password" }).count()).toBe(0);
    await context.close();

    // And the password signs in.
    const again = await open("/");
    expect((await signIn(again.page, email, PASSWORD)).status()).toBe(200);
    await again.context.close();
  });
});

describe("the desktop app's pages", () => {
  it("/ula-login-error says to close the window, with Help Center once; success offers the named brand", async () => {
    const { page, context } = await open("/ula-login-error?error_description=The%20sign-in%20request%20expired.");
    await page.setViewportSize(PHONE);
    for (const brand of BRAND_IDS) {
      await page.goto(`/ula-login-error?error_description=The%20sign-in%20request%20expired.&theme=${brand}`);
      await page.getByText("The sign-in request expired.").waitFor();
      const close = brand === "archviz" ? "try again from Enscape." : "try again from the application.";
      await page.getByText(`You can close this window and ${close}`).waitFor();
      expect(await page.getByRole("link", { name: "Help Center", exact: true }).count()).toBe(1);
      await check(page, `ula-login-error-${brand}-phone`);
    }
    await page.goto("/ula-login-success?client_brand=archviz");
    await page.getByRole("heading", { name: "You are signed in to Enscape", level: 1 }).waitFor();
    const home = page.getByRole("main").getByRole("link", { name: "Continue to Enscape", exact: true });
    expect(await home.getAttribute("href")).toBe(BRANDS.archviz.links.home);
    for (const brand of BRAND_IDS) {
      await page.goto(`/ula-login-success?client_brand=archviz&theme=${brand}`);
      await home.waitFor();
      await check(page, `ula-login-success-archviz-${brand}-phone`);
    }
    await context.close();
  });
});

describe("the licence helper's wait", () => {
  /** A person with a password, signed in on a phone, and the completion page's address with a token. */
  async function atCompletion() {
    const email = uniqueEmail("account.licence");
    await person(email);
    const { page, context } = await open("/");
    await page.setViewportSize(PHONE);
    expect((await signIn(page, email, PASSWORD)).status()).toBe(200);
    const answer = await page.request.get("/api/studio/complete", { maxRedirects: 0 });
    expect(answer.status()).toBe(302);
    return { page, context, address: String(answer.headers().location) };
  }
  const calls = () => {
    const from = helper.requests.length;
    return () => helper.requests.slice(from);
  };

  it("busy: its own body text and the try under way, then the licence active", async () => {
    helper.setMode("temporary", 2);
    const { page, context, address } = await atCompletion();
    const made = calls();
    await page.goto(address);
    await page.getByRole("heading", { name: "The licence server is busy", level: 1 }).waitFor();
    await page.getByText("Your licence is activated as soon as the server has time.", { exact: false }).waitFor();
    await page.getByText(/^Try [23] of 5$/u).waitFor();
    await page.getByRole("heading", { name: "Your licence is active", level: 1 }).waitFor();
    expect(made()).toHaveLength(3);
    await context.close();
  });

  it("busy in every brand, held on the page's clock between tries: photographed", async () => {
    helper.setMode("temporary", 1_000);
    const { page, context, address } = await atCompletion();
    await page.clock.install();
    for (const brand of BRAND_IDS) {
      await page.goto(`${address}&theme=${brand}`);
      await page.getByText("Try 2 of 5").waitFor();
      await check(page, `studio-busy-${brand}-phone`);
    }
    await context.close();
  });

  it("silent: each try's number shown, and the wait ends after the spec's 5 tries with the count visible", async () => {
    helper.setMode("slow");
    const { page, context, address } = await atCompletion();
    const made = calls();
    await page.clock.install();
    await page.goto(address);
    await page.getByRole("heading", { name: "Activating your licence", level: 1 }).waitFor();
    for (let attempt = 1; attempt <= 5; attempt++) {
      await expect.poll(() => made().length).toBe(attempt);
      if (attempt > 1) {
        await page.getByText(`Try ${attempt} of 5`).waitFor();
        await page.getByText("is taking a while to answer", { exact: false }).waitFor();
      }
      // The try's 10 s timeout, then the 2 s before the next (spec §9).
      await page.clock.runFor(10_000);
      if (attempt < 5) await page.clock.runFor(2_000);
    }
    await page.getByText("could not be reached", { exact: false }).waitFor();
    await page.clock.runFor(60_000);
    expect(made()).toHaveLength(5);
    await context.close();
  });
});
