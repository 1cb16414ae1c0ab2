import { HostSettings } from "@gatehouse/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "../src/accounts/users.ts";
import { loadConfig } from "../src/config.ts";
import { DENIED_FEATURES } from "../src/http/page-headers.ts";
import { Client, expectErrorObject, startServer, type TestServer } from "./harness.ts";

/**
 * The country header decides the CN image captcha over the proof of work (spec §2), so it is believed only from a
 * proxy trusted under TRUST_PROXY, as Fastify believes X-Forwarded-* (ASVS 4.1.3). The tests connect from
 * 127.0.0.1: with TRUST_PROXY off, or set to addresses that are not theirs, they are a client sending the header.
 */
const servers: Record<"off" | "proxy" | "elsewhere", TestServer> = {} as never;
const PASSWORD = "Copper-Lantern-91!";
beforeAll(async () => {
  servers.off = await startServer();
  servers.proxy = await startServer({ env: { TRUST_PROXY: "true" } });
  servers.elsewhere = await startServer({ env: { TRUST_PROXY: "10.0.0.0/8, 192.168.1.1" } });
  for (const server of Object.values(servers))
    await createUser(server.app.db, {
      email: "cn@example.com",
      password: PASSWORD,
      firstName: "Li",
      lastName: "Wei",
      countryCode: "CN",
    });
});
afterAll(() => Promise.all(Object.values(servers).map((s) => s.close())));

async function country(server: TestServer, header: Record<string, string>) {
  const client = await new Client(server.url, header).start();
  const captcha = await client.get("/api/captcha/generate");
  const html = await (await fetch(`${server.url}/register`, { headers: header })).text();
  const json = /<script id="gatehouse-settings" type="application\/json">(.*?)<\/script>/su.exec(html)?.[1];
  const settings = HostSettings.parse(JSON.parse(json ?? "null"));
  await client.login("cn@example.com", PASSWORD);
  const session = (await client.get("/api/session")).json;
  return { captcha, page: settings.country, language: settings.language, location: session.Location };
}

describe("the country header (COUNTRY_HEADER)", () => {
  it.each([
    ["TRUST_PROXY is off", "off"],
    ["the peer is not one of the TRUST_PROXY addresses", "elsewhere"],
  ] as const)("is ignored when %s: ZZ, the proof of work, no image captcha", async (_name, which) => {
    for (const value of ["CN", "cn", "ES"]) {
      const seen = await country(servers[which], { "cf-ipcountry": value, "x-forwarded-for": "203.0.113.9" });
      expectErrorObject(seen.captcha, 404, "not_found");
      expect([seen.page, seen.location, seen.language]).toEqual(["ZZ", "ZZ", "en"]);
    }
  });

  it("is believed from a trusted proxy: CN gets the image captcha, ES the Spanish page", async () => {
    const cn = await country(servers.proxy, { "cf-ipcountry": "CN" });
    expect(cn.captcha.status).toBe(200);
    expect(cn.captcha.json).toEqual({ id: expect.any(String), image: expect.any(String) });
    expect([cn.page, cn.location]).toEqual(["CN", "CN"]);
    const es = await country(servers.proxy, { "cf-ipcountry": "ES" });
    expect([es.page, es.location, es.language]).toEqual(["ES", "ES", "es"]);
  });

  it("follows TRUST_PROXY's rule for the connection's peer", () => {
    const env = { SESSION_SECRET: "s".repeat(32), DATABASE_URL: "sqlite::memory:" };
    const trusted = (value: string, address: string | undefined) =>
      loadConfig({ ...env, TRUST_PROXY: value }).trustedProxy(address);
    expect(trusted("false", "127.0.0.1")).toBe(false);
    expect(trusted("true", "198.51.100.1")).toBe(true);
    expect(trusted("2", "198.51.100.1")).toBe(true);
    expect(trusted("10.0.0.0/8, 192.168.1.1", "10.1.2.3")).toBe(true);
    expect(trusted("10.0.0.0/8, 192.168.1.1", "::ffff:10.1.2.3")).toBe(true);
    expect(trusted("10.0.0.0/8, 192.168.1.1", "192.168.1.2")).toBe(false);
    expect(trusted("loopback", "::1")).toBe(true);
    expect(trusted("true", undefined)).toBe(false);
  });
});

describe("page headers", () => {
  const directives = (policy: string | null) =>
    new Map(
      (policy ?? "").split(";").map((d) => {
        const [name = "", ...sources] = d.trim().split(/\s+/u);
        return [name, sources] as const;
      }),
    );

  it.each(["/", "/register", "/no/such/page"])("%s denies the browser features we never use", async (path) => {
    const response = await fetch(`${servers.off.url}${path}`);
    const policy = response.headers.get("permissions-policy") ?? "";
    const features = new Map(policy.split(/,\s*/u).map((entry) => entry.split("=") as [string, string]));
    for (const feature of [
      "camera",
      "microphone",
      "geolocation",
      "payment",
      "usb",
      "browsing-topics",
      ...DENIED_FEATURES,
    ])
      expect(features.get(feature), feature).toBe("()");
    // What a configured Turnstile or reCAPTCHA frame, or passkeys later, may need stays at the browser's default.
    for (const feature of ["autoplay", "fullscreen", "publickey-credentials-get", "private-state-token-redemption"])
      expect(features.has(feature), feature).toBe(false);
  });

  it("loads styles and fonts from our own origin only, never from any https: origin", async () => {
    const csp = directives((await fetch(`${servers.off.url}/`)).headers.get("content-security-policy"));
    expect(csp.get("style-src")).toEqual(["'self'", "'unsafe-inline'"]);
    expect(csp.get("font-src")).toEqual(["'self'", "data:"]);
    expect(csp.get("script-src")).toEqual(["'self'"]);
    for (const [name, sources] of csp) expect(sources, name).not.toContain("https:");
  });

  it("leaves /api answers their own fixed set", async () => {
    const answer = await new Client(servers.off.url).get("/api/session");
    expect(answer.headers.get("content-security-policy")).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(answer.headers.get("cache-control")).toBe("no-store");
    expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
  });
});
