import { BRAND_IDS, BRANDS, type BrandId } from "@gatehouse/contract";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { atProvider, useFederation } from "./federation-fixture.ts";
import { federationPages, PASSWORD, TO_PROFILE, tabTo } from "./federation-pages.ts";
import { layoutProblems, settled } from "./layout.ts";
import { DESKTOP, expectAccessible, isFocused, PHONE, screenshot, uniqueEmail } from "./support.ts";

/**
 * Issue #11 in Chromium: every screen of social and corporate sign-in in every brand on a phone and a desktop
 * (axe, layout, screenshot), and the journeys by keyboard alone, through the stand-in identity provider.
 */
const fx = useFederation();
const { open, onBrandHost, person, signInWith } = federationPages(fx);

describe("by keyboard alone", () => {
  it("corporate sign-in, social registration and linking, with Tab and Enter only", async () => {
    // On the brand's own host, so the whole journey keeps its look.
    const { page, context } = await open(onBrandHost("engine", "/corporate_login"));
    const corporate = page.getByLabel("Corporate email");
    await tabTo(page, corporate);
    await page.keyboard.type("nobody@nowhere.example");
    await page.keyboard.press("Enter");
    await page.getByText("We cannot find a corporate account with that email.").waitFor();

    // Social registration: from the page's start to CREATE ACCOUNT.
    await page.goto(onBrandHost("engine", "/"));
    await tabTo(page, page.getByRole("button", { name: "Sign in with Google" }));
    await page.keyboard.press("Enter");
    const email = uniqueEmail("keys");
    await atProvider(page, fx.idp, { email, firstName: "Kim", lastName: "Seo" });
    await page.getByRole("heading", { name: "Create account", level: 1 }).waitFor();
    await tabTo(page, page.getByLabel("First name"));
    await page.keyboard.press("Tab");
    expect(await isFocused(page.getByLabel("Last name"))).toBe(true);
    await page.keyboard.press("Tab");
    const country = page.getByRole("combobox", { name: "Country" });
    expect(await isFocused(country)).toBe(true);
    await page.keyboard.type("Portugal");
    expect(await country.inputValue()).toBe("PT");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Space");
    expect(await page.getByLabel("Send me news about products, tips and offers.").isChecked()).toBe(true);
    await tabTo(page, page.getByRole("button", { name: "CREATE ACCOUNT" }));
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Account created" }).waitFor();
    await tabTo(page, page.getByRole("button", { name: "OK" }));
    await page.keyboard.press("Enter");
    await page.waitForURL((url) => !url.pathname.startsWith("/register"));
    await context.close();

    // Linking: the password field, then Enter.
    const existing = uniqueEmail("keys.link");
    await person(existing);
    const link = await open(onBrandHost("engine", TO_PROFILE));
    await tabTo(link.page, link.page.getByRole("button", { name: "Sign in with Google" }));
    await link.page.keyboard.press("Enter");
    await atProvider(link.page, fx.idp, { email: existing });
    const password = link.page.getByLabel("Corona password");
    await tabTo(link.page, password);
    await link.page.keyboard.type(PASSWORD);
    await link.page.keyboard.press("Enter");
    await link.page.getByRole("heading", { name: "Edit account" }).waitFor();
    await link.context.close();
  });
});

/** A Google answer waiting in a fresh browser: a new person's (`register`) or an existing account's (`link`). */
async function waiting(kind: "register" | "link") {
  const email = uniqueEmail(`brand.${kind}`);
  if (kind === "link") await person(email);
  const visitor = await open("/");
  await signInWith(visitor.page, "google", { email, firstName: "Zoë", lastName: "Åkesson-Núñez" });
  await visitor.page
    .getByRole("heading", { name: kind === "register" ? "Create account" : "Link your accounts", level: 1 })
    .waitFor();
  return visitor;
}

/** A screen as it is now: axe (WCAG 2.1 AA), nothing a person sees go wrong, and a screenshot. */
async function check(page: Page, name: string) {
  await settled(page);
  await expectAccessible(page);
  expect(await layoutProblems(page, "en")).toEqual([]);
  await screenshot(page, name);
}

describe.each(BRAND_IDS)("every new screen in brand %s, on a phone and a desktop", (brand: BrandId) => {
  const name = BRANDS[brand].name;

  it("social registration and its complete screen", async () => {
    const { page, context } = await waiting("register");
    for (const [size, viewport] of [
      ["desktop", DESKTOP],
      ["phone", PHONE],
    ] as const) {
      await page.setViewportSize(viewport);
      await page.goto(`/register/social?theme=${brand}`);
      await page.getByText("Zoë Åkesson-Núñez").waitFor();
      await page.getByRole("combobox", { name: "Country" }).locator("option").nth(5).waitFor({ state: "attached" });
      expect(await page.title()).toBe(`Sign up | ${name}`);
      await check(page, `social-register-${brand}-${size}`);
      // The complete screen of an account that waits for its activation (it stays; the signed-in one moves on).
      await page.evaluate(() =>
        sessionStorage.setItem(
          "gatehouse.socialRegistered",
          JSON.stringify({ email: "zoe@example.com", fullName: "Zoë Åkesson-Núñez", activation: true }),
        ),
      );
      await page.goto(`/register/social/complete?theme=${brand}`);
      await page.getByRole("heading", { name: "Account created" }).waitFor();
      expect(await page.title()).toBe(`Sign up complete | ${name}`);
      await check(page, `social-register-complete-${brand}-${size}`);
    }
    await context.close();
  });

  it("linking an existing account", async () => {
    const { page, context } = await waiting("link");
    for (const [size, viewport] of [
      ["desktop", DESKTOP],
      ["phone", PHONE],
    ] as const) {
      await page.setViewportSize(viewport);
      await page.goto(`/link/existing/social?theme=${brand}`);
      await page.getByRole("heading", { name: "Link your accounts" }).waitFor();
      await page.getByLabel(`${name} password`).waitFor();
      expect(await page.title()).toBe(`Link account | ${name}`);
      await check(page, `link-account-${brand}-${size}`);
    }
    await context.close();
  });

  it("corporate sign-in and its error screen", async () => {
    const { page, context } = await open(`/corporate_login?theme=${brand}`);
    for (const [size, viewport] of [
      ["desktop", DESKTOP],
      ["phone", PHONE],
    ] as const) {
      await page.setViewportSize(viewport);
      await page.goto(`/corporate_login?theme=${brand}`);
      await page.getByRole("heading", { name: "Corporate sign-in", level: 1 }).waitFor();
      await page.getByRole("button", { name: "Next" }).click();
      await page.getByText("Please enter your username or email address.").waitFor();
      await check(page, `corporate-login-${brand}-${size}`);
      await page.goto(
        `/corporate_login/error?theme=${brand}&error_code=external_idp_error&error_id=${crypto.randomUUID()}`,
      );
      await page.getByRole("heading", { name: "Corporate sign-in failed" }).waitFor();
      await check(page, `corporate-login-error-${brand}-${size}`);
    }
    await context.close();
  });

  it("Edit account's linked sign-in methods", async () => {
    const email = uniqueEmail("brand.identities");
    await person(email);
    const { page, context } = await open(TO_PROFILE);
    await signInWith(page, "google", { email });
    await page.getByLabel("Gatehouse password").fill(PASSWORD);
    await page.getByRole("button", { name: "LINK ACCOUNTS" }).click();
    await page.getByRole("heading", { name: "Edit account" }).waitFor();
    for (const [size, viewport] of [
      ["desktop", DESKTOP],
      ["phone", PHONE],
    ] as const) {
      await page.setViewportSize(viewport);
      await page.goto(`/profile/edit?theme=${brand}`);
      await page.getByRole("button", { name: "Remove Google" }).waitFor();
      await check(page, `profile-identities-${brand}-${size}`);
    }
    await context.close();
  });
});
