import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.ts";
import { tempDir } from "./harness.ts";

const base = () => ({ DATABASE_URL: `sqlite:${tempDir()}/db.sqlite`, SESSION_SECRET: "s".repeat(32) });

describe("configuration from the environment", () => {
  it("has the documented defaults", () => {
    const config = loadConfig(base());
    expect(config.port).toBe(8080);
    expect(config.publicUrl.href).toBe("http://localhost:8080/");
    expect(config.countryHeader).toBe("cf-ipcountry");
    expect(config.trustProxy).toBe(false);
    expect(config.production).toBe(false);
  });

  it("names every invalid variable", () => {
    expect(() =>
      loadConfig({ ...base(), PORT: "eighty", PUBLIC_URL: "ftp://x", DATABASE_URL: "mysql://x" }),
    ).toThrowError(/PORT[\s\S]*PUBLIC_URL|PUBLIC_URL[\s\S]*PORT/u);
    expect(() => loadConfig({ ...base(), DATABASE_URL: "mysql://x" })).toThrowError(/DATABASE_URL: must be sqlite/u);
  });

  it("takes LICENCE_HELPER_URL as an origin only (issue #13)", () => {
    expect(loadConfig(base()).licenceHelperOrigin).toBe("http://localhost:30304");
    expect(loadConfig({ ...base(), LICENCE_HELPER_URL: "http://127.0.0.1:4000/" }).licenceHelperOrigin).toBe(
      "http://127.0.0.1:4000",
    );
    for (const bad of ["ftp://localhost:1", "http://localhost:1/activate", "http://a:b@localhost:1", "localhost:1"]) {
      expect(() => loadConfig({ ...base(), LICENCE_HELPER_URL: bad }), bad).toThrowError(/LICENCE_HELPER_URL/u);
    }
  });

  it("keeps the licence helper on this computer and the forum on https in production", () => {
    const production = {
      ...base(),
      SESSION_SECRET: "s".repeat(32),
      NODE_ENV: "production",
      SMTP_URL: "smtp://mail.example.com:587",
    };
    expect(() => loadConfig({ ...production, LICENCE_HELPER_URL: "https://helper.example.com" })).toThrowError(
      /LICENCE_HELPER_URL: must be on this computer/u,
    );
    expect(loadConfig({ ...production, LICENCE_HELPER_URL: "http://127.0.0.1:30304" }).licenceHelperOrigin).toBe(
      "http://127.0.0.1:30304",
    );
    const forum = { DISCOURSE_SECRET: "0123456789abcdef" };
    expect(() => loadConfig({ ...production, ...forum, DISCOURSE_URL: "http://forum.example.com" })).toThrowError(
      /DISCOURSE_URL: must be https in production/u,
    );
    expect(loadConfig({ ...production, ...forum, DISCOURSE_URL: "https://forum.example.com" }).discourse?.origin).toBe(
      "https://forum.example.com",
    );
    // Outside production a developer's forum stand-in runs on plain http.
    expect(loadConfig({ ...base(), ...forum, DISCOURSE_URL: "http://127.0.0.1:8095" }).discourse?.origin).toBe(
      "http://127.0.0.1:8095",
    );
  });

  it("requires SMTP_URL in production, where no dev mailbox would hold the mail", () => {
    const production = { ...base(), SESSION_SECRET: "s".repeat(32), NODE_ENV: "production" };
    expect(() => loadConfig(production)).toThrowError(/SMTP_URL: required in production/u);
    expect(loadConfig({ ...production, SMTP_URL: "smtp://mail.example.com:587" }).smtpUrl).toBe(
      "smtp://mail.example.com:587",
    );
  });

  it("requires SESSION_SECRET in production and makes one elsewhere", () => {
    expect(() =>
      loadConfig({ ...base(), SESSION_SECRET: undefined, NODE_ENV: "production", SMTP_URL: "smtp://127.0.0.1:1" }),
    ).toThrowError(/SESSION_SECRET: required in production/u);
    const dir = tempDir();
    const first = loadConfig({ DATABASE_URL: `sqlite:${dir}/db.sqlite` }).sessionSecret;
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(loadConfig({ DATABASE_URL: `sqlite:${dir}/db.sqlite` }).sessionSecret).toBe(first);
  });

  it("refuses a short SESSION_SECRET", () => {
    expect(() => loadConfig({ ...base(), SESSION_SECRET: "short" })).toThrowError(/SESSION_SECRET/u);
  });

  it("reads TRUST_PROXY as hops or addresses", () => {
    const one = loadConfig({ ...base(), TRUST_PROXY: "true" }).trustProxy;
    expect(typeof one === "function" && one("10.0.0.1", 0) && !one("10.0.0.2", 1)).toBe(true);
    expect(loadConfig({ ...base(), TRUST_PROXY: "10.0.0.0/8, 192.168.1.1" }).trustProxy).toEqual([
      "10.0.0.0/8",
      "192.168.1.1",
    ]);
  });

  it("reports an unreadable or invalid brands file", () => {
    expect(() => loadConfig({ ...base(), BRANDS_FILE: "/no/such/file.json" })).toThrowError(/BRANDS_FILE/u);
  });
});
