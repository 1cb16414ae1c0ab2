import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeSiteverify } from "../packages/server/test/siteverify.ts";
import { type Service, startService } from "./global.ts";
import { launch, registerStepOne, registerStepTwo, uniqueEmail, visit } from "./support.ts";

/**
 * A deployment that configures Cloudflare Turnstile or Google reCAPTCHA instead of our proof of work. This machine
 * reaches no third party, so both sides of the provider stand in on loopback: its browser script (served through
 * Playwright at the provider's real address, which the page's Content-Security-Policy must allow) and its
 * siteverify call (BOT_CHECK_VERIFY_URL). Everything of ours is real.
 */
const PROVIDERS = [
  { provider: "turnstile", global: "turnstile", script: "https://challenges.cloudflare.com/turnstile/v0/api.js**" },
  { provider: "recaptcha", global: "grecaptcha", script: "https://www.google.com/recaptcha/api.js**" },
] as const;

/** The provider's widget as far as the page can tell: explicit render, a token to the callback, reset, remove. */
const fakeScript = (global: string) => `(() => {
  const src = new URL(document.currentScript.src);
  let clicks = 0;
  let widget;
  window.__botCheck = { script: src.href, renders: [] };
  window[${JSON.stringify(global)}] = {
    render(element, options) {
      window.__botCheck.renders.push({ sitekey: options.sitekey, language: options.language ?? null, theme: options.theme });
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = "Verify you are human";
      button.onclick = () => {
        button.textContent = "Success!";
        options.callback("token-" + ++clicks);
      };
      element.append(button);
      widget = { element, button };
      return "widget-1";
    },
    reset() { widget.button.textContent = "Verify you are human"; },
    remove() { widget.element.replaceChildren(); },
  };
  window[src.searchParams.get("onload")]();
})();`;

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(() => browser?.close());

describe.each(PROVIDERS)("registration with $provider configured", ({ provider, global, script }) => {
  // The provider refuses the first token ("token-1") and accepts the rest.
  const siteverify = new FakeSiteverify(
    (form) => form.get("secret") === `${provider}-secret` && form.get("response") !== "token-1",
  );
  const verified = siteverify.seen;
  let service: Service;

  beforeAll(async () => {
    await siteverify.start();
    service = await startService({
      BOT_CHECK: provider,
      BOT_CHECK_SECRET: `${provider}-secret`,
      BOT_CHECK_SITE_KEY: `${provider}-site-key`,
      BOT_CHECK_VERIFY_URL: siteverify.url,
    });
  });
  afterAll(async () => {
    await service?.stop();
    await siteverify.stop();
  });

  it("draws the provider's widget, resets it after a refused token, and registers with a good one", async () => {
    const { page, context } = await visit(browser, "/register?theme=cross", {}, service.baseUrl);
    await page.route(script, (route) => route.fulfill({ contentType: "text/javascript", body: fakeScript(global) }));
    const email = uniqueEmail(provider);
    await registerStepOne(page, email);
    await registerStepTwo(page);

    const check = page.getByRole("group", { name: "I'm not a robot" });
    const widget = check.getByRole("button", { name: "Verify you are human" });
    await widget.waitFor();
    const seen = (await page.evaluate("window.__botCheck")) as {
      script: string;
      renders: { sitekey: string; language: string | null; theme: string }[];
    };
    expect(seen.renders).toEqual([
      { sitekey: `${provider}-site-key`, language: provider === "turnstile" ? "en" : null, theme: "dark" },
    ]);
    if (provider === "recaptcha") expect(new URL(seen.script).searchParams.get("hl")).toBe("en");
    // Without the provider's token the form does not go to the server.
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByText("Please confirm that you are not a robot.").waitFor();

    await widget.click();
    await check.getByRole("button", { name: "Success!" }).waitFor();
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByText("We could not verify that you are human. Please try again.").waitFor();
    // On failure the check resets (spec §4), so the refused token cannot be sent again.
    await widget.waitFor();
    expect(verified.at(-1)?.get("response")).toBe("token-1");

    await widget.click();
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByRole("heading", { name: "Check your email" }).waitFor();
    expect(verified.at(-1)?.get("response")).toBe("token-2");
    expect(verified.at(-1)?.get("secret")).toBe(`${provider}-secret`);
    await context.close();
  });

  it("says the check failed when the provider's script cannot load, and sends nothing", async () => {
    const { page, context } = await visit(browser, "/register", {}, service.baseUrl);
    await page.route(script, (route) => route.abort("internetdisconnected"));
    const before = verified.length;
    await registerStepOne(page, uniqueEmail(`${provider}-offline`));
    await registerStepTwo(page);
    const check = page.getByRole("group", { name: "I'm not a robot" });
    await check.getByRole("alert").filter({ hasText: "Verification failed. Please try again later." }).waitFor();
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByText("Please confirm that you are not a robot.").waitFor();
    expect(verified.length).toBe(before);
    await context.close();
  });
});
