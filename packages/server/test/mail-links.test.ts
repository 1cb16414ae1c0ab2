import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "../src/accounts/users.ts";
import { loadConfig } from "../src/config.ts";
import { mailLink, mailSite } from "../src/mail/links.ts";
import { Client, startServer, type TestServer, tempDir } from "./harness.ts";
import { solveBotCheck } from "./pow.ts";

const env = (extra: Record<string, string>) => ({
  DATABASE_URL: `sqlite:${tempDir()}/db.sqlite`,
  SESSION_SECRET: "s".repeat(32),
  ...extra,
});

function brandsFile(sites: { host: string; brand: string }[]): string {
  const path = join(tempDir(), "brands.json");
  writeFileSync(path, JSON.stringify({ defaultBrand: "default", returnHosts: [], sites }));
  return path;
}

describe("where each brand's mail links open (the brands file, not the request)", () => {
  it("uses the brand's loopback host with PUBLIC_URL's scheme and port in development", () => {
    const origins = loadConfig(env({ PUBLIC_URL: "http://localhost:8080" })).brandOrigins;
    expect(origins.default).toBe("http://localhost:8080");
    expect(origins.cloud).toBe("http://cloud.localhost:8080");
    expect(origins.archviz).toBe("http://archviz.localhost:8080");
  });

  it("uses the brand's public host in production, never a loopback one", () => {
    const origins = loadConfig(env({ PUBLIC_URL: "https://login.gatehouse.example" })).brandOrigins;
    expect(origins.default).toBe("https://login.gatehouse.example");
    expect(origins.cloud).toBe("https://login.cloud.gatehouse.example");
    expect(origins.archviz).toBe("https://login.archviz.example");
    expect(Object.values(origins).some((o) => o.includes("localhost"))).toBe(false);
  });

  it("keeps PUBLIC_URL for the brand it belongs to, and for a brand without a site", () => {
    const file = brandsFile([
      { host: "account.example.com", brand: "default" },
      { host: "login.example.com", brand: "default" },
      { host: "enscape.example.com", brand: "archviz" },
    ]);
    const origins = loadConfig(env({ PUBLIC_URL: "https://login.example.com:8443", BRANDS_FILE: file })).brandOrigins;
    expect(origins.default).toBe("https://login.example.com:8443");
    expect(origins.archviz).toBe("https://enscape.example.com:8443");
    expect(origins.cloud).toBe("https://login.example.com:8443");
  });

  it("refuses a site that is not a bare host name", () => {
    for (const host of ["https://evil.example", "evil.example/path", "evil.example:81", "a b"])
      expect(() => loadConfig(env({ BRANDS_FILE: brandsFile([{ host, brand: "cloud" }]) }))).toThrowError(
        /BRANDS_FILE .* is invalid/u,
      );
  });

  it("builds links on the site, carrying the mail's language", () => {
    const site = { brand: "cloud", origin: "https://login.cloud.example" } as const;
    expect(mailLink(site, "/account/activate?code=abc", "jp")).toBe(
      "https://login.cloud.example/account/activate?code=abc&lang=jp",
    );
    expect(mailLink(site, "/", "nonsense")).toBe("https://login.cloud.example/?lang=en");
    expect(() => mailLink(site, "//evil.example/x", "en")).toThrowError(/stay on the brand's site/u);
  });
});

/** A browser-like caller through Fastify's inject, which, unlike fetch, may send any Host header. */
async function caller(app: FastifyInstance, headers: Record<string, string>) {
  const session = await app.inject({ method: "GET", url: "/api/session", headers });
  const cookie = session.cookies.map((c) => `${c.name}=${c.value}`).join("; ");
  const csrf = String(session.headers["x-csrf-token"]);
  return (url: string, payload: object) =>
    app.inject({ method: "POST", url, payload, headers: { ...headers, cookie, "x-csrf-token": csrf } });
}

describe("mail links of API calls (host-header poisoning)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ env: { TRUST_PROXY: "true" } });
  });
  afterAll(() => server.close());

  /** The link in the newest mail to the address, from the outbox (the dev mailbox keeps bodies). */
  async function mailedLink(email: string): Promise<{ link: URL; subject: string }> {
    await server.app.services.mail.runOnce();
    const row = await server.app.db
      .selectFrom("outbox")
      .selectAll()
      .where("recipient", "=", email)
      .orderBy("created_at", "desc")
      .executeTakeFirstOrThrow();
    const found = /https?:\/\/\S+/u.exec(row.text_body)?.[0];
    if (!found) throw new Error(`no link in ${row.text_body}`);
    return { link: new URL(found), subject: row.subject };
  }

  const person = (email: string, status: "active" | "pending", language = "en") =>
    createUser(server.app.db, { email, password: "correct horse", status, language });

  it("links to the configured origin whatever Host or X-Forwarded-Host a request forges", async () => {
    await person("poison@example.com", "active", "fr");
    const forgeries: Record<string, string>[] = [
      { host: "evil.example" },
      { host: "evil.example:8080", "x-forwarded-host": "evil.example" },
      { host: "localhost:8080", "x-forwarded-host": "evil.example" },
      { host: "localhost.evil.example" },
    ];
    for (const forged of forgeries) {
      const post = await caller(server.app, forged);
      expect((await post("/api/account/recover", { email: "poison@example.com" })).statusCode).toBe(200);
      const { link } = await mailedLink("poison@example.com");
      expect(link.origin).toBe("http://localhost:8080");
      expect(link.pathname).toBe("/account/password-reset");
      expect(link.searchParams.get("lang")).toBe("fr");
    }
  });

  it("never greets by the e-mail address when the account has no name (Japanese 様 after an address)", async () => {
    for (const language of ["en", "jp"]) {
      const email = `nameless-${language}@example.com`;
      await person(email, "active", language);
      await (await caller(server.app, {}))("/api/account/recover", { email });
      const row = await server.app.db
        .selectFrom("outbox")
        .select(["text_body", "html_body"])
        .where("recipient", "=", email)
        .executeTakeFirstOrThrow();
      expect(row.text_body).not.toContain(email);
      expect(row.html_body).not.toContain(email);
    }
  });

  it("links to the host of the brand the person acted on, in the account's language when the call names none", async () => {
    await person("enscape@example.com", "active", "de");
    const post = await caller(server.app, { host: "login.archviz.example" });
    await post("/api/account/recover", { email: "enscape@example.com" });
    const { link, subject } = await mailedLink("enscape@example.com");
    expect(subject).toContain("Enscape");
    expect(link.origin).toBe("http://archviz.localhost:8080");
    expect(link.searchParams.get("lang")).toBe("de");
  });

  it("sends the activation link of a sign-up on a brand's host there, with its return path on that host", async () => {
    const c = await new Client(server.url, {
      "x-forwarded-host": "archviz.localhost:8080",
      "accept-language": "es",
    }).start();
    const answer = await c.post("/api/account/register", {
      email: "signup@example.com",
      password: "Tr0ub4dor&3x",
      firstName: "Ana",
      lastName: "Ruiz",
      countryCode: "ES",
      returnTo: "/profile/edit",
      botCheck: await solveBotCheck(c),
    });
    expect(answer.status).toBe(200);
    const { link, subject } = await mailedLink("signup@example.com");
    expect(subject).toContain("Enscape");
    expect(link.origin).toBe("http://archviz.localhost:8080");
    expect(link.pathname).toBe("/account/activate/login");
    expect(link.searchParams.get("return_to")).toBe("http://archviz.localhost:8080/profile/edit");
    expect(link.searchParams.get("lang")).toBe("es");
  });

  it("sends a resent activation link to the brand's host too", async () => {
    await person("pending@example.com", "pending", "jp");
    const post = await caller(server.app, { host: "cloud.localhost:8080" });
    await post("/api/account/resend_activation", { email: "pending@example.com" });
    const { link, subject } = await mailedLink("pending@example.com");
    expect(subject).toContain("Cloud Render");
    expect(link.origin).toBe("http://cloud.localhost:8080");
    expect(link.pathname).toBe("/account/activate");
    expect(link.searchParams.get("lang")).toBe("jp");
  });

  it("follows the theme header outside production to that brand's configured host", async () => {
    await person("theme@example.com", "active");
    const post = await caller(server.app, { host: "evil.example", "x-gatehouse-theme": "engine" });
    await post("/api/account/recover", { email: "theme@example.com" });
    expect((await mailedLink("theme@example.com")).link.origin).toBe("http://engine.localhost:8080");
    expect(mailSite(server.config, "engine").origin).toBe("http://engine.localhost:8080");
  });
});
