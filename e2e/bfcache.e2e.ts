import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPerson, launch, signIn, uniqueEmail, visit } from "./support.ts";

const PASSWORD = "Granite-Kettle-58";
let browser: Browser;

beforeAll(async () => {
  browser = await launch({ backForwardCache: true });
});
afterAll(() => browser?.close());

/**
 * Notes in the tab's sessionStorage that the page came back from the back/forward cache, and whether the first
 * frame drawn after that still showed the account form.
 */
function noteRestores(page: Page) {
  return page.addInitScript(() => {
    window.addEventListener("pageshow", (event) => {
      if (!event.persisted) return;
      sessionStorage.setItem("restoredFromCache", String(Date.now()));
      requestAnimationFrame(() => {
        const shown = Array.from(document.querySelectorAll("h1")).some(
          (h) => h.textContent === "Edit account" && h.checkVisibility(),
        );
        sessionStorage.setItem("accountInFirstFrame", String(shown));
      });
    });
  });
}

describe("a page restored from the back/forward cache (issue #9)", () => {
  it("does not show the account after a sign-out in another tab: it goes where a fresh load goes", async () => {
    const email = uniqueEmail("bfcache");
    await createPerson({ email, password: PASSWORD, first: "Iris", last: "Vale", country: "NL" });
    const { page, context } = await visit(browser, "/");
    await noteRestores(page);
    await page.goto("/profile/edit");
    await page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor();
    await signIn(page, email, PASSWORD);
    await page.getByRole("heading", { name: "Edit account", level: 1 }).waitFor();
    await page.getByLabel("First name").waitFor();

    // Another document in the same tab, then a sign-out in another tab of the same browser.
    await page.goto("/account/recover");
    await page.getByRole("heading", { name: "Forgot your password?", level: 1 }).waitFor();
    const other = await context.newPage();
    await other.goto("/logout");
    await other.getByText("You have been signed out.").waitFor();
    await other.close();

    await page.goBack();
    await page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor();
    const url = new URL(page.url());
    expect(url.pathname).toBe("/");
    expect(url.searchParams.get("return_to")).toContain("/profile/edit");
    expect(await page.getByLabel("First name").count()).toBe(0);
    const stored = (key: string) => page.evaluate((k) => sessionStorage.getItem(k), key);
    expect(await stored("restoredFromCache")).not.toBeNull();
    expect(await stored("accountInFirstFrame")).toBe("false");
    await context.close();
  });
});
