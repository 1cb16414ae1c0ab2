import { HostSettings } from "@gatehouse/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, expectErrorObject, startServer, type TestServer } from "./harness.ts";
import { FakeSiteverify } from "./siteverify.ts";

const provider = new FakeSiteverify(
  (form) => form.get("secret") === "provider-secret" && form.get("response") === "good-token",
);
const seen = provider.seen;
let server: TestServer;

beforeAll(async () => {
  await provider.start();
  server = await startServer({
    env: {
      BOT_CHECK: "turnstile",
      BOT_CHECK_SECRET: "provider-secret",
      BOT_CHECK_SITE_KEY: "site-key",
      BOT_CHECK_VERIFY_URL: provider.url,
    },
  });
});
afterAll(async () => {
  await server.close();
  await provider.stop();
});

const person = (email: string, botCheck: string) => ({
  email,
  password: "Granite-Kettle-58",
  firstName: "T",
  lastName: "S",
  countryCode: "FR",
  botCheck,
});

describe("Turnstile / reCAPTCHA verification when configured", () => {
  it("verifies the token with the provider, with our secret and the client address", async () => {
    const client = await new Client(server.url, { "x-forwarded-for": "198.51.100.9" }).start();
    expect((await client.post("/api/account/register", person("turnstile@example.com", "good-token"))).status).toBe(
      200,
    );
    expect(seen.at(-1)?.get("secret")).toBe("provider-secret");
    expect(seen.at(-1)?.get("response")).toBe("good-token");
  });

  it("refuses a token the provider refuses, and a replayed one", async () => {
    const client = await new Client(server.url).start();
    expectErrorObject(
      await client.post("/api/account/register", person("nope@example.com", "bad-token")),
      400,
      "bot_check_failed",
    );
    expectErrorObject(
      await client.post("/api/account/register", person("again@example.com", "good-token")),
      400,
      "bot_check_failed",
    );
  });

  it("tells the page which widget to draw, with the site key and never the secret", async () => {
    const response = await fetch(`${server.url}/register`);
    const html = await response.text();
    const json = /<script id="gatehouse-settings" type="application\/json">(.*?)<\/script>/su.exec(html)?.[1];
    expect(HostSettings.parse(JSON.parse(json ?? "null")).botCheck).toEqual({
      provider: "turnstile",
      siteKey: "site-key",
    });
    expect(html).not.toContain("provider-secret");
    // OWASP ASVS 3.4.3: the policy opens scripts and frames to the provider's origin and no other.
    const policy = new Map(
      (response.headers.get("content-security-policy") ?? "").split(";").map((d) => {
        const [name = "", ...sources] = d.trim().split(" ");
        return [name, sources.join(" ")];
      }),
    );
    expect(policy.get("script-src")).toBe("'self' https://challenges.cloudflare.com");
    expect(policy.get("frame-src")).toBe("https://challenges.cloudflare.com");
  });

  it("needs the secret and site key", async () => {
    const { loadConfig } = await import("../src/config.ts");
    expect(() =>
      loadConfig({ SESSION_SECRET: "s".repeat(32), DATABASE_URL: "sqlite::memory:", BOT_CHECK: "recaptcha" }),
    ).toThrowError(/BOT_CHECK_SECRET/u);
  });
});
