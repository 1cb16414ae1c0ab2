import type { BrandId } from "@gatehouse/contract";
import type { Locator, Page } from "playwright-core";
import { expect } from "vitest";
import { atProvider, type FederationFixture } from "./federation-fixture.ts";
import { createPerson, isFocused, stubExternalSites, visit } from "./support.ts";

/** What the federation browser tests do on Gatehouse's pages, as a person does, over one fixture. */
export const PASSWORD = "Granite-Kettle-58";
export const BUTTON = {
  google: "Sign in with Google",
  facebook: "Continue with Facebook",
  trimble: "Sign in with Trimble",
};
export type Platform = keyof typeof BUTTON;
/** The sign-in page with Edit account as its return address (a path on our own origin is always allowed). */
export { TO_PROFILE } from "./support.ts";

/** Presses Tab until the element has the focus (at most `max` times); fails if it never does. */
export async function tabTo(page: Page, target: Locator, max = 20) {
  for (let i = 0; i < max && !(await isFocused(target)); i++) await page.keyboard.press("Tab");
  expect(await isFocused(target)).toBe(true);
}

/** Social registration's form, filled as a person does. */
export async function completeProfile(page: Page) {
  await page.getByRole("combobox", { name: "Country" }).selectOption("PT");
  await page.getByLabel("Send me news about products, tips and offers.").check();
  await page.getByRole("button", { name: "CREATE ACCOUNT" }).click();
}

/** Signed in as whom, by the gateway's own answer. */
export async function sessionEmail(page: Page): Promise<string | undefined> {
  const answer = await page.request.get("/api/session");
  return answer.status() === 200 ? ((await answer.json()) as { Email: string }).Email : undefined;
}

export function federationPages(fx: FederationFixture) {
  return {
    /** A fresh browser at a path of the federation service; brand sites on the Internet answer with a stub page. */
    async open(path: string) {
      const visitor = await visit(fx.browser, "about:blank", {}, fx.service.baseUrl);
      await stubExternalSites(visitor.context);
      await visitor.page.goto(path);
      return visitor;
    },
    /** A brand's own host (engine.localhost, …): the brand stays the same through a provider's round trip. */
    onBrandHost(brand: BrandId, path: string): string {
      const url = new URL(path, fx.service.baseUrl);
      url.hostname = `${brand}.localhost`;
      return url.href;
    },
    /** An account with a password, made with the admin command line. */
    person: (email: string, flags: string[] = []) =>
      createPerson(
        { email, password: PASSWORD, first: "Mia", last: "Berg", country: "SE", flags },
        fx.service.databaseUrl,
      ),
    /** From the sign-in page through the provider's button and its sign-in form, back at Gatehouse. */
    async signInWith(page: Page, platform: Platform, who: Parameters<typeof atProvider>[2] = {}) {
      await page.getByRole("button", { name: BUTTON[platform] }).click();
      return atProvider(page, fx.idp, who);
    },
  };
}
