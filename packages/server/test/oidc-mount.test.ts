import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { startServer, type TestServer, tempDir } from "./harness.ts";
import { readJson } from "./oidc-harness.ts";

describe("the OpenID Connect provider at /oidc", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it("publishes discovery with the issuer PUBLIC_URL/oidc, and a JWKS of public keys only", async () => {
    const discovery = await readJson(await fetch(`${server.url}/oidc/.well-known/openid-configuration`));
    expect(discovery.issuer).toBe("http://localhost:8080/oidc");
    expect(discovery.code_challenge_methods_supported).toEqual(["S256"]);
    const jwks = await readJson(await fetch(`${server.url}/oidc/jwks`));
    expect(jwks.keys.length).toBeGreaterThanOrEqual(2);
    for (const key of jwks.keys) expect(key).not.toHaveProperty("d");
  });

  it("reads its own request bodies: a form POST to the token endpoint reaches the provider, not our parsers", async () => {
    for (const body of [
      new URLSearchParams({ grant_type: "authorization_code", code: "x", client_id: "dev-site" }),
      // A body far beyond the gateway's 16 KiB form limit is the provider's to judge, not a 413 from us.
      new URLSearchParams({ grant_type: "authorization_code", code: "x".repeat(20_000), client_id: "nobody" }),
    ]) {
      const answer = await fetch(`${server.url}/oidc/token`, { method: "POST", body });
      expect(answer.status).toBe(401);
      expect((await readJson(answer)).error).toBe("invalid_client");
    }
  });

  it("answers with its own headers, not the pages' CSP, and no Referer leaves its redirects", async () => {
    const answer = await fetch(`${server.url}/oidc/.well-known/openid-configuration`);
    expect(answer.headers.get("content-security-policy")).toBe(
      "default-src 'none'; script-src 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    expect(answer.headers.get("referrer-policy")).toBe("no-referrer");
    expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
    expect(answer.headers.get("permissions-policy")).toBeNull();
  });

  it("shows our error page, never the library's HTML, for a request it cannot send back to the client", async () => {
    for (const query of [
      { client_id: "nobody", redirect_uri: "https://evil.example/cb", response_type: "code", scope: "openid" },
      // A redirect URI that differs from the registered one by a trailing slash is not the same URI (RFC 9700 §2.1).
      {
        client_id: "dev-site",
        redirect_uri: "http://localhost:3000/callback/",
        response_type: "code",
        scope: "openid",
      },
    ]) {
      const answer = await fetch(`${server.url}/oidc/auth?${new URLSearchParams(query)}`, { redirect: "manual" });
      expect(answer.status).toBe(303);
      const location = new URL(answer.headers.get("location") ?? "", server.url);
      expect(location.pathname).toBe("/error");
      expect(location.searchParams.get("error_code")).toBe("service_request_invalid");
      expect(location.searchParams.get("error_id")).toMatch(/^[0-9a-f-]{36}$/u);
      expect(await answer.text()).not.toContain("<html");
    }
  });

  it("believes X-Forwarded-Proto only from a proxy TRUST_PROXY trusts", async () => {
    const answer = await fetch(`${server.url}/oidc/.well-known/openid-configuration`, {
      headers: { "x-forwarded-proto": "https", "x-forwarded-host": "evil.example" },
    });
    const discovery = await readJson(answer);
    expect(discovery.authorization_endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/oidc\/auth$/u);
  });
});

describe("the provider's requests in the log", () => {
  it("are logged as they arrived under /oidc, with the tokens a site puts in the query masked", async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const dir = tempDir();
    const config = loadConfig({
      NODE_ENV: "test",
      DATABASE_URL: `sqlite:${join(dir, "log.db")}`,
      SESSION_SECRET: "test-secret-that-is-long-enough-123456",
      LOG_LEVEL: "info",
      WEB_DIST: dir,
    });
    const app = await buildApp(config, { logStream: stream });
    try {
      await app.listen({ port: 0, host: "127.0.0.1" });
      const { port } = app.server.address() as AddressInfo;
      await fetch(`http://127.0.0.1:${port}/oidc/session/end?id_token_hint=eyJ.secret.token&client_id=dev-site`);
    } finally {
      await app.close();
    }
    const logged = lines.join("");
    expect(logged).toContain("/oidc/session/end?id_token_hint=REDACTED&client_id=dev-site");
    expect(logged).not.toContain("eyJ.secret.token");
  });
});
