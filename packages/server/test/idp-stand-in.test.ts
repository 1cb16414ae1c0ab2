import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signInAtStandIn } from "../../../scripts/idp/sign-in.ts";
import { defaultSubject, type StandInIdp, startStandInIdp } from "../../../scripts/idp/stand-in.ts";
import { Client, startServer, type TestServer, tempDir } from "./harness.ts";
import { freePort } from "./ports.ts";

/**
 * Issue #11 "Trying it": the development providers file (`packages/server/config/idps.dev.json`) with the stand-in
 * that `npm run idp` starts, exactly as a newcomer runs them, only on free ports. Trimble is set up there with its
 * endpoints given (no discovery), as the real one needs; every tenant signs a person in.
 */
const DEV_FILE = resolve(import.meta.dirname, "../config/idps.dev.json");
let idp: StandInIdp;
let server: TestServer;
let origin: string;

beforeAll(async () => {
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  idp = await startStandInIdp({ origins: [origin] });
  // The dev file names the stand-in's default address; the test's stand-in listens on a free port instead.
  const file = join(tempDir(), "idps.dev.json");
  writeFileSync(file, readFileSync(DEV_FILE, "utf8").replaceAll("http://127.0.0.1:8090", idp.url));
  server = await startServer({ port, env: { PUBLIC_URL: origin, IDPS_FILE: file } });
});

afterAll(async () => {
  await server?.close();
  await idp?.close();
});

async function signIn(platform: string, email: string) {
  const client = await new Client(server.url).start();
  const start = await client.post("/api/account/social/login", { platform });
  expect(start.status).toBe(200);
  const callback = await signInAtStandIn(start.json.redirect_to, { email, firstName: "Dev", lastName: "Eloper" });
  const answer = await client.get(callback.pathname + callback.search);
  return { client, location: new URL(answer.headers.get("location") ?? "", origin) };
}

describe("the development providers file and the stand-in", () => {
  it("sets up every provider, each button's flag on", async () => {
    const html = await (await fetch(`${server.url}/`)).text();
    expect(html).toContain('"socialPlatforms":["google","facebook","trimble"]');
    const modes = await (await new Client(server.url).start()).post("/api/account/login/modes", {
      username: "dev@acme.example",
    });
    expect(modes.json).toEqual({ oidc: true, password: false });
  });

  it.each(["google", "facebook", "trimble"])(
    "signs a new person in through %s up to social registration",
    async (platform) => {
      const email = `dev.${platform}.${Date.now()}@example.com`;
      const { client, location } = await signIn(platform, email);
      expect(location.pathname).toBe("/register/social");
      expect((await client.get("/api/account/social/pending")).json).toMatchObject({
        platform,
        email,
        firstName: "Dev",
        lastName: "Eloper",
        // Facebook's word on an address is never taken (docs/decisions.md).
        emailVerified: platform !== "facebook",
      });
    },
  );

  it("publishes discovery with the RFC 9207 issuer parameter, and answers Facebook's /me only with a valid token", async () => {
    const discovery = await (await fetch(`${idp.issuer("google")}/.well-known/openid-configuration`)).json();
    expect(discovery).toMatchObject({
      issuer: idp.issuer("google"),
      authorization_response_iss_parameter_supported: true,
    });
    const me = await fetch(`${idp.issuer("facebook")}/me?fields=id,email`, {
      headers: { authorization: "Bearer not-a-token" },
    });
    expect(me.status).toBe(401);
    expect(((await me.json()) as { error: { type: string } }).error.type).toBe("OAuthException");
  });

  it("gives an address the same subject every time at a tenant, and different ones at different tenants", () => {
    expect(defaultSubject("google", "Ann@Example.com")).toBe(defaultSubject("google", "ann@example.com"));
    expect(defaultSubject("google", "ann@example.com")).not.toBe(defaultSubject("acme", "ann@example.com"));
  });
});
