import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.ts";
import { readClients } from "../src/settings/clients.ts";
import { tempDir } from "./harness.ts";

const SECRET = "a-client-secret-of-at-least-forty-three-characters";

function fileWith(clients: unknown[]): string {
  const path = join(tempDir(), "clients.json");
  writeFileSync(path, JSON.stringify({ clients }));
  return path;
}

const read = (clients: unknown[], production = false) =>
  readClients(fileWith(clients), { defaultBrand: "default", production }, (message) => new ConfigError(message));

const site = { client_id: "site", client_secret: SECRET, redirect_uris: ["https://site.example/cb"] };
const app = { client_id: "app", application_type: "native", redirect_uris: ["http://127.0.0.1/cb"] };

describe("CLIENTS_FILE", () => {
  it("fills in a confidential code-flow site and a public desktop app", () => {
    const [web, native] = read([site, { ...app, brand: "archviz", first_party: true }]);
    expect(web).toMatchObject({
      token_endpoint_auth_method: "client_secret_basic",
      response_types: ["code"],
      grant_types: ["authorization_code", "refresh_token"],
      brand: "default",
      legacy: false,
      first_party: false,
    });
    expect(native).toMatchObject({
      token_endpoint_auth_method: "none",
      application_type: "native",
      brand: "archviz",
      first_party: true,
    });
    expect(native).not.toHaveProperty("client_secret");
  });

  it("ships defaults that load: a web site, the Enscape desktop app and the demo's third-party example site", () => {
    const config = loadConfig({ NODE_ENV: "test", SESSION_SECRET: "x".repeat(32) });
    expect(config.clients.map((c) => [c.client_id, c.application_type])).toEqual([
      ["dev-site", "web"],
      ["enscape", "native"],
      ["example-app", "web"],
    ]);
    // A third party (not first_party): `npm run demo` shows the consent screen with it.
    expect(config.clients.find((c) => c.client_id === "example-app")?.first_party).toBe(false);
  });

  it("keeps the implicit flow for clients marked legacy", () => {
    const legacy = { ...site, response_types: ["id_token token"], legacy: true };
    expect(read([legacy])[0]).toMatchObject({ response_types: ["id_token token"], grant_types: ["implicit"] });
    expect(() => read([{ ...legacy, legacy: false }])).toThrow(/implicit flows are for legacy clients only/u);
    expect(() => read([{ ...site, grant_types: ["implicit"] }])).toThrow(/implicit flows are for legacy clients only/u);
  });

  it("refuses a desktop app with a secret, a site without one, a short secret, a duplicate and an unknown field", () => {
    expect(() => read([{ ...app, client_secret: SECRET }])).toThrow(/native app is a public client/u);
    expect(() => read([{ ...site, client_secret: undefined }])).toThrow(/client_secret: required/u);
    expect(() => read([{ ...site, client_secret: "short" }])).toThrow(/at least 43 characters/u);
    expect(() => read([site, site])).toThrow(/site is listed twice/u);
    // The web app's own client of the legacy flow (oidc/legacy.ts) cannot be replaced from the file.
    expect(() => read([{ ...site, client_id: "gatehouse" }])).toThrow(
      /clients\.0\.client_id: gatehouse is the web app's own client/u,
    );
    expect(() => read([{ ...site, redirect_uri: "https://site.example/cb" }])).toThrow(/redirect_uri/u);
    expect(() => read([{ ...site, brand: "nope" }])).toThrow(/clients\.0\.brand/u);
  });

  it("refuses plain http addresses of a web site in production, but not on loopback or for a desktop app", () => {
    expect(() => read([{ ...site, redirect_uris: ["http://site.example/cb"] }], true)).toThrow(
      /http:\/\/site\.example\/cb must be https in production/u,
    );
    expect(read([{ ...site, redirect_uris: ["http://localhost:3000/cb"] }, app], true)).toHaveLength(2);
  });

  it("names the file in a clear message at start", () => {
    const path = join(tempDir(), "broken.json");
    writeFileSync(path, "{ not json");
    expect(() => loadConfig({ NODE_ENV: "test", SESSION_SECRET: "x".repeat(32), CLIENTS_FILE: path })).toThrow(
      new RegExp(`CLIENTS_FILE ${path} cannot be read`, "u"),
    );
  });
});
