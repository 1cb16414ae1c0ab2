import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "../src/accounts/users.ts";
import type { App } from "../src/app.ts";
import { startServer, type TestServer } from "./harness.ts";
import { BRAND, Browser, CENTRAL, PASSWORD } from "./host-browser.ts";
import { createPerson } from "./oidc-harness.ts";

describe("linked sessions against odd input and a shared computer (issue #10 §5)", () => {
  let server: TestServer;
  let app: App;
  beforeAll(async () => {
    server = await startServer({ env: { LINKED_SESSIONS: "true" } });
    app = server.app;
  });
  afterAll(() => server.close());

  it("another person signing in on the central host ends the previous person's linked sessions on brand hosts", async () => {
    const first = await createPerson(app);
    const second = await createPerson(app);
    const browser = new Browser(app);
    await browser.signIn(CENTRAL, first.email);
    await browser.linkFrom(BRAND, CENTRAL, "/");
    expect((await browser.session(BRAND)).UserGUID).toBe(first.id);
    // A shared computer: the next person signs in on the central host. The code treats this as the previous
    // person's sign-out (sessions.ts replaceSession), yet their session on the brand host lives on, Linked.
    await browser.signIn(CENTRAL, second.email);
    expect((await browser.session(CENTRAL)).UserGUID).toBe(second.id);
    const brand = await browser.session(BRAND);
    expect(brand?.UserGUID).not.toBe(first.id);
  });

  it("odd input to the link's three endpoints never answers 5xx", async () => {
    const { email } = await createPerson(app);
    const browser = new Browser(app);
    await browser.signIn(CENTRAL, email);
    const odd = [
      `${BRAND}/api/session/link/start?from=${encodeURIComponent(CENTRAL)}&from=x&return_to=/`,
      `${BRAND}/api/session/link/start?from=%ff&return_to=%ff`,
      `${BRAND}/api/session/link/start?from=${encodeURIComponent(CENTRAL)}&return_to=${"a".repeat(10000)}`,
      `${BRAND}/api/session/link/start`,
      `${CENTRAL}/api/session/link/give?to=${encodeURIComponent(BRAND)}&state=%ff&return_to=/`,
      `${CENTRAL}/api/session/link/give?to=${encodeURIComponent(BRAND)}&state=${"a".repeat(43)}&state=${"b".repeat(43)}&return_to=/`,
      `${CENTRAL}/api/session/link/give?to=${encodeURIComponent(BRAND)}&state=${"a".repeat(43)}&return_to=/&return_to=/x`,
      `${CENTRAL}/api/session/link/give?to=${encodeURIComponent(`${BRAND}/`)}&state=${"a".repeat(43)}&return_to=/`,
      `${CENTRAL}/api/session/link/give?to=${encodeURIComponent(BRAND.toUpperCase())}&state=${"a".repeat(43)}&return_to=/`,
      `${BRAND}/api/session/link/redeem?code=%ff&return_to=/`,
      `${BRAND}/api/session/link/redeem?code=a&code=b&return_to=/`,
      `${BRAND}/api/session/link/redeem?code=${"a".repeat(100000)}&return_to=/`,
      `${BRAND}/api/session/link/redeem?code=&return_to=/`,
      `${BRAND}/api/session/link/redeem?return_to=`,
      `http://localhost:9999/api/session/link/redeem?code=x&return_to=/`,
    ];
    for (const address of odd) {
      const answer = await browser.request("GET", address);
      expect(answer.status, address).toBeLessThan(500);
      if (answer.location)
        expect(["localhost", "cloud.localhost", "archviz.localhost"]).toContain(new URL(answer.location).hostname);
    }
  });

  it("a state cookie with odd bytes or duplicates never answers 5xx", async () => {
    const browser = new Browser(app);
    browser.jar("cloud.localhost").set("gh_link_state", "%ff%fe");
    const answer = await browser.request("GET", `${BRAND}/api/session/link/redeem?code=${"a".repeat(43)}&return_to=/`);
    expect(answer.status).toBeLessThan(500);
  });
});

describe("linked sessions over https", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ env: { LINKED_SESSIONS: "true", PUBLIC_URL: "https://login.gatehouse.example" } });
  });
  afterAll(() => server.close());

  it("keeps the round trip's state in a __Host- cookie a sibling subdomain cannot plant, and links with it", async () => {
    const central = "https://login.gatehouse.example";
    const brand = "https://login.cloud.gatehouse.example";
    const email = `${randomUUID()}@example.com`;
    const user = await createUser(server.app.db, {
      email,
      password: PASSWORD,
      firstName: "A",
      lastName: "B",
      countryCode: "DE",
    });
    const browser = new Browser(server.app);
    await browser.signIn(central, email);
    const start = await browser.request(
      "GET",
      `${brand}/api/session/link/start?${new URLSearchParams({ from: central, return_to: "/" })}`,
    );
    const cookies = [start.headers["set-cookie"]].flat().map(String);
    const cookie = cookies.find((line) => line.startsWith("__Host-gh_link_state="));
    expect(cookie).toMatch(
      /^__Host-gh_link_state=[A-Za-z0-9_-]{43}; Max-Age=60; Path=\/; HttpOnly; Secure; SameSite=Lax$/u,
    );
    await browser.follow(String(start.location));
    expect((await browser.session(brand)).UserGUID).toBe(user.id);
  });
});
