import { createServer, type Server } from "node:http";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Service, startService } from "./global.ts";
import { launch, uniqueEmail, visit } from "./support.ts";

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
      window.__botCheck.renders.push({ sitekey: options.sitekey, language: options.language ?? null });
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

const PASSWORD = "Granite-Kettle-58";

async function fillBothSteps(page: Page, email: string) {
  await page.getByRole("heading", { name: "Create account", level: 1 }).waitFor();
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByRole("heading", { name: "Almost there", level: 1 }).waitFor();
  await page.getByLabel("First name").fill("Ada");
  await page.getByLabel("Last name").fill("Byron");
  await page.getByRole("combobox", { name: "Country" }).selectOption("GB");
}

describe.each(PROVIDERS)("registration with $provider configured", ({ provider, global, script }) => {
  let siteverify: Server;
  const verified: URLSearchParams[] = [];
  let service: Service;

  beforeAll(async () => {
    // The provider refuses its first token of each test ("token-1") and accepts the rest.
    siteverify = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk) => (body += chunk));
      request.on("end", () => {
        const form = new URLSearchParams(body);
        verified.push(form);
        const success = form.get("secret") === `${provider}-secret` && form.get("response") !== "token-1";
        response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ success }));
      });
    });
    await new Promise<void>((resolve) => siteverify.listen(0, "127.0.0.1", resolve));
    const { port } = siteverify.address() as { port: number };
    service = await startService({
      BOT_CHECK: provider,
      BOT_CHECK_SECRET: `${provider}-secret`,
      BOT_CHECK_SITE_KEY: `${provider}-site-key`,
      BOT_CHECK_VERIFY_URL: `http://127.0.0.1:${port}/siteverify`,
    });
  });
  afterAll(async () => {
    await service?.stop();
    await new Promise((resolve) => siteverify?.close(resolve));
  });

  it("draws the provider's widget, resets it after a refused token, and registers with a good one", async () => {
    const { page, context } = await visit(browser, "/register", {}, service.baseUrl);
    await page.route(script, (route) => route.fulfill({ contentType: "text/javascript", body: fakeScript(global) }));
    const email = uniqueEmail(provider);
    await fillBothSteps(page, email);

    const check = page.getByRole("group", { name: "I'm not a robot" });
    const widget = check.getByRole("button", { name: "Verify you are human" });
    await widget.waitFor();
    const seen = (await page.evaluate("window.__botCheck")) as {
      script: string;
      renders: { sitekey: string; language: string | null }[];
    };
    expect(seen.renders).toEqual([
      { sitekey: `${provider}-site-key`, language: provider === "turnstile" ? "en" : null },
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
});
